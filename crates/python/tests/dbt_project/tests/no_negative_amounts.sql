select * from {{ ref('stg_people') }} where amount < 0
