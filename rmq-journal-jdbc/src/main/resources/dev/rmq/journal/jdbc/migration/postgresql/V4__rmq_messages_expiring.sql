-- What retention prunes besides finished messages: open ones whose time to live ran out. Redis drops such a message
-- without a consumer seeing it, so no change ever finishes its row, and a restore leaves it out.
CREATE INDEX rmq_messages_expiring ON rmq_messages (expire_at) WHERE NOT finished AND expire_at IS NOT NULL;
