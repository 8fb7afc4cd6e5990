/**
 * A journal of messages outside Redis, and the restore that puts back what Redis lost. A {@link
 * dev.rmq.journal.MessageJournal} given to {@code RmqClient.Builder.journal} hears of every send, change and
 * delivery; {@link dev.rmq.journal.RmqRestorer} puts journaled messages back into Redis, never twice.
 */
@NullMarked
package dev.rmq.journal;

import org.jspecify.annotations.NullMarked;
