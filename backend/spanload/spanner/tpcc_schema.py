"""The nine TPC-C tables in Spanner's idiom (``workload: tpcc``).

Every table under a warehouse is interleaved in its parent, so that one warehouse's rows sit
together and a transaction touches one split where the keys allow: district in warehouse,
customer and orders and new_order in district, history in customer, order_line in orders, stock
in warehouse. The key columns keep one name down the hierarchy (``w_id``, ``d_id``, ``c_id``,
``o_id``), as Spanner requires of an interleaved child's key prefix. Money is NUMERIC, so the
consistency conditions compare exact sums. ``item`` is the one table outside the hierarchy.

Secondary indexes, interleaved in district like the rows they index: customers by last name
(Payment and Order-Status by name), and orders by customer, newest first (Order-Status).
"""

from __future__ import annotations

from typing import Any

from spanload.model.config import Target
from spanload.spanner.schemas import ensure_ddl

TABLES = ("warehouse", "district", "customer", "history", "orders", "new_order", "order_line", "item", "stock")

DDL: tuple[str, ...] = (
    """CREATE TABLE warehouse (
  w_id INT64 NOT NULL,
  w_name STRING(10),
  w_street_1 STRING(20),
  w_street_2 STRING(20),
  w_city STRING(20),
  w_state STRING(2),
  w_zip STRING(9),
  w_tax NUMERIC,
  w_ytd NUMERIC,
) PRIMARY KEY (w_id)""",
    """CREATE TABLE district (
  w_id INT64 NOT NULL,
  d_id INT64 NOT NULL,
  d_name STRING(10),
  d_street_1 STRING(20),
  d_street_2 STRING(20),
  d_city STRING(20),
  d_state STRING(2),
  d_zip STRING(9),
  d_tax NUMERIC,
  d_ytd NUMERIC,
  d_next_o_id INT64,
) PRIMARY KEY (w_id, d_id), INTERLEAVE IN PARENT warehouse ON DELETE CASCADE""",
    """CREATE TABLE customer (
  w_id INT64 NOT NULL,
  d_id INT64 NOT NULL,
  c_id INT64 NOT NULL,
  c_first STRING(16),
  c_middle STRING(2),
  c_last STRING(16),
  c_street_1 STRING(20),
  c_street_2 STRING(20),
  c_city STRING(20),
  c_state STRING(2),
  c_zip STRING(9),
  c_phone STRING(16),
  c_since TIMESTAMP,
  c_credit STRING(2),
  c_credit_lim NUMERIC,
  c_discount NUMERIC,
  c_balance NUMERIC,
  c_ytd_payment NUMERIC,
  c_payment_cnt INT64,
  c_delivery_cnt INT64,
  c_data STRING(500),
) PRIMARY KEY (w_id, d_id, c_id), INTERLEAVE IN PARENT district ON DELETE CASCADE""",
    "CREATE INDEX customer_by_last_name ON customer (w_id, d_id, c_last, c_first), INTERLEAVE IN district",
    # TPC-C's HISTORY has no key; h_id (random) makes one, under the paying customer.
    """CREATE TABLE history (
  w_id INT64 NOT NULL,
  d_id INT64 NOT NULL,
  c_id INT64 NOT NULL,
  h_id INT64 NOT NULL,
  h_w_id INT64,
  h_d_id INT64,
  h_date TIMESTAMP,
  h_amount NUMERIC,
  h_data STRING(24),
) PRIMARY KEY (w_id, d_id, c_id, h_id), INTERLEAVE IN PARENT customer ON DELETE CASCADE""",
    """CREATE TABLE orders (
  w_id INT64 NOT NULL,
  d_id INT64 NOT NULL,
  o_id INT64 NOT NULL,
  o_c_id INT64,
  o_entry_d TIMESTAMP,
  o_carrier_id INT64,
  o_ol_cnt INT64,
  o_all_local INT64,
) PRIMARY KEY (w_id, d_id, o_id), INTERLEAVE IN PARENT district ON DELETE CASCADE""",
    "CREATE INDEX orders_by_customer ON orders (w_id, d_id, o_c_id, o_id DESC), INTERLEAVE IN district",
    """CREATE TABLE new_order (
  w_id INT64 NOT NULL,
  d_id INT64 NOT NULL,
  o_id INT64 NOT NULL,
) PRIMARY KEY (w_id, d_id, o_id), INTERLEAVE IN PARENT district ON DELETE CASCADE""",
    """CREATE TABLE order_line (
  w_id INT64 NOT NULL,
  d_id INT64 NOT NULL,
  o_id INT64 NOT NULL,
  ol_number INT64 NOT NULL,
  ol_i_id INT64,
  ol_supply_w_id INT64,
  ol_delivery_d TIMESTAMP,
  ol_quantity INT64,
  ol_amount NUMERIC,
  ol_dist_info STRING(24),
) PRIMARY KEY (w_id, d_id, o_id, ol_number), INTERLEAVE IN PARENT orders ON DELETE CASCADE""",
    """CREATE TABLE item (
  i_id INT64 NOT NULL,
  i_im_id INT64,
  i_name STRING(24),
  i_price NUMERIC,
  i_data STRING(50),
) PRIMARY KEY (i_id)""",
    """CREATE TABLE stock (
  w_id INT64 NOT NULL,
  i_id INT64 NOT NULL,
  s_quantity INT64,
  s_dist_01 STRING(24),
  s_dist_02 STRING(24),
  s_dist_03 STRING(24),
  s_dist_04 STRING(24),
  s_dist_05 STRING(24),
  s_dist_06 STRING(24),
  s_dist_07 STRING(24),
  s_dist_08 STRING(24),
  s_dist_09 STRING(24),
  s_dist_10 STRING(24),
  s_ytd INT64,
  s_order_cnt INT64,
  s_remote_cnt INT64,
  s_data STRING(50),
) PRIMARY KEY (w_id, i_id), INTERLEAVE IN PARENT warehouse ON DELETE CASCADE""",
)


def ensure_tpcc_schema(client: Any, target: Target) -> None:
    """Create what is missing of the nine tables and two indexes (idempotent, like the report schemas)."""
    ensure_ddl(client, target, DDL, "tpcc")
