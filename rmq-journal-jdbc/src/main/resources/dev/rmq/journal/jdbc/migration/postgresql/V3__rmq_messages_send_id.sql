-- The send whose content a message row holds (the header rmq-send-id of its newest send: a merge replaces it with
-- the merging send's). A consumer's delivery names the send it carries, so that the journal matches the delivery to
-- its message by this id, not by the order the rows came in. Null for a message sent without one.
ALTER TABLE rmq_messages ADD COLUMN send_id VARCHAR(32);
