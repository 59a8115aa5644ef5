{{ config(materialized='incremental', unique_key='id', incremental_strategy='merge') }}
select id, name, amount from {{ ref('stg_people') }}
{% if is_incremental() %}
where amount <> 0
{% endif %}
