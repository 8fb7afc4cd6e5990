-- What retention prunes besides finished messages: open ones whose time to live ran out. Redis drops such a message
-- while it waits (or moves it to the dead queue) without a consumer seeing it, so no change ever finishes its row.
CREATE INDEX rmq_messages_expiring ON rmq_messages (finished, expire_at);
