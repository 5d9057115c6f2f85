-- Listings follow creation order. created_at alone cannot give it: rows made in one transaction
-- (an organization's default projects) share a timestamp, and ids are random.
ALTER TABLE projects ADD COLUMN created_seq bigint GENERATED ALWAYS AS IDENTITY;
ALTER TABLE api_keys ADD COLUMN created_seq bigint GENERATED ALWAYS AS IDENTITY;
