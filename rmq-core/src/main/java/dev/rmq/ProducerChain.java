package dev.rmq;

import dev.rmq.internal.journal.JournaledProducer;
import dev.rmq.internal.observation.ObservedProducer;
import dev.rmq.internal.observation.Observations;
import dev.rmq.internal.payload.Payloads;
import dev.rmq.internal.producer.HeldProducer;
import dev.rmq.internal.producer.ScriptProducer;
import dev.rmq.journal.MessageJournal;
import dev.rmq.producer.RmqProducer;
import dev.rmq.producer.SendHold;
import dev.rmq.topic.TopicRegistry;
import org.jspecify.annotations.Nullable;

/**
 * The client's producer, put together from the one that runs the send script outwards: the journal hears of what
 * Redis stored, inside the observation (so that it keeps the trace headers Redis stored with each message), and
 * outermost, sends wait for the unit of work around them when there is a hold.
 *
 * @param checks   the innermost producer, which checks and encodes a message without sending it
 * @param unheld   the producer without the hold: what the client's own threads (schedules) send with
 * @param producer what the client hands out
 */
record ProducerChain(ScriptProducer checks, RmqProducer unheld, RmqProducer producer) {

    static ProducerChain of(ScriptProducer sends, @Nullable MessageJournal journal, TopicRegistry topics,
                            Payloads payloads, @Nullable Observations observations, @Nullable SendHold hold) {
        RmqProducer journaled = journal == null ? sends : new JournaledProducer(sends, journal, topics, payloads);
        RmqProducer observed = observations == null ? journaled : new ObservedProducer(journaled, observations);
        return new ProducerChain(sends, observed, hold == null ? observed : new HeldProducer(observed, sends, hold));
    }
}
