{{ config(materialized='table') }}
select id, upper(name) as name_up, amount * 2 as double_amount from {{ ref('stg_people') }}
