select id, name, amount, joined from {{ ref('people') }}
