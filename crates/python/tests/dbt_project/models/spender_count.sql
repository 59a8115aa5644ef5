{{ config(materialized='table') }}
select count(*) as n, sum(amount) as total from {{ ref('big_spenders') }}
