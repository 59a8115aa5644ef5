{% snapshot people_snapshot %}
{{ config(target_schema='dbt_demo', unique_key='id', strategy='check', check_cols=['amount']) }}
select id, name, amount from {{ ref('people') }}
{% endsnapshot %}
