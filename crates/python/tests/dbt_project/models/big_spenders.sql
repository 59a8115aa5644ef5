{{ config(materialized='ephemeral') }}
select id, amount from {{ ref('stg_people') }} where amount > 8
