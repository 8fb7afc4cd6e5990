-- Keeps the planner's count of open messages fresh. A journal's writer looks up a key's open messages, and the
-- planner picks the index of open messages or the key index by how many messages it believes open. By default
-- autovacuum refreshes that count once a tenth of the table has changed, and a table that keeps a long history can
-- take on a backlog of hundreds of thousands of open messages before then: planned as if hardly any were open, each
-- lookup reads every open message (about a quarter of a second a lookup with 20,000 open). Refreshed after every 10,000 changed
-- rows instead, at most once a minute (autovacuum's naptime), the count stays close.
ALTER TABLE rmq_messages SET (autovacuum_analyze_scale_factor = 0, autovacuum_analyze_threshold = 10000);
