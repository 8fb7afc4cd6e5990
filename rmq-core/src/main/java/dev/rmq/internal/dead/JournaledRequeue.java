package dev.rmq.internal.dead;

import dev.rmq.internal.journal.SendIds;
import dev.rmq.internal.redis.Envelope;
import dev.rmq.internal.redis.Futures;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.MalformedEnvelopeException;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.internal.script.DeadListCall;
import dev.rmq.internal.script.DeadRequeueCall;
import dev.rmq.internal.script.GetCall;
import dev.rmq.internal.script.ScriptRunner;
import dev.rmq.journal.JournaledSend;
import dev.rmq.journal.MessageJournal;
import dev.rmq.producer.MessageState;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Requeues of a journaled topic's dead messages. A journal holds a dead message as finished, so one that waits again
 * is told to it as a send: a restore then brings it back. Each waits under a send id of its own, so that its
 * deliveries name the journal's new row and never the dead one's, whatever order their rows reach the journal in.
 * A message is read first, then requeued with its new headers while it is still the one that died when it was read.
 */
final class JournaledRequeue {

    private static final Logger log = LoggerFactory.getLogger(JournaledRequeue.class);
    /** Dead messages read per page by {@link #requeueAll}. */
    private static final int PAGE = 100;
    /** Reads and requeues of one key when another change of it comes between the two. */
    private static final int TRIES = 3;

    private final KeyLayout keys;
    private final ScriptRunner scripts;
    private final MessageJournal journal;

    JournaledRequeue(KeyLayout keys, ScriptRunner scripts, MessageJournal journal) {
        this.keys = keys;
        this.scripts = scripts;
        this.journal = journal;
    }

    /** Whether the journal records the topic's messages: the others requeue as they died. */
    boolean records(TopicDefinition topic) {
        return journal.journals(topic.name());
    }

    /** Requeues the dead message of {@code key}, if there is one. */
    DeadRequeueCall.Result requeue(TopicDefinition topic, SlotKeys slotKeys, int slot, String key) {
        for (int attempt = 0; attempt < TRIES; attempt++) {
            Optional<GetCall.Found> found = Futures.join(scripts.run(slotKeys, new GetCall(topic.type(), key)));
            if (found.isEmpty() || found.get().state() != MessageState.DEAD) {
                return DeadRequeueCall.Result.NOT_DEAD;
            }
            DeadRequeueCall.Result result = requeue(topic, slotKeys, slot, key, (long) found.get().score(),
                    found.get().envelope());
            if (result != DeadRequeueCall.Result.NOT_DEAD) {
                return result;
            }
        }
        return DeadRequeueCall.Result.NOT_DEAD;
    }

    /**
     * Requeues every dead message of a slot, page by page; returns how many left the dead queue, those a newer
     * message of their key replaced included. Stops at a journal's failure, the message it was on requeued.
     */
    long requeueAll(TopicDefinition topic, SlotKeys slotKeys, int slot) {
        long moved = 0;
        while (true) {
            List<DeadListCall.Entry> page = Futures.join(scripts.run(slotKeys, new DeadListCall(0, PAGE)));
            long before = moved;
            for (DeadListCall.Entry entry : page) {
                DeadRequeueCall.Result result = requeue(topic, slotKeys, slot, entry.key(), entry.diedAtMs(),
                        entry.envelope());
                moved += result == DeadRequeueCall.Result.NOT_DEAD ? 0 : 1;
            }
            // a page of which nothing moved changed under its reads: another requeue, a purge; read once more
            if (page.size() < PAGE && moved == before || page.isEmpty()) {
                return moved;
            }
        }
    }

    /** Requeues the dead message read as {@code raw}, dead since {@code diedAtMs}, and tells the journal. */
    private DeadRequeueCall.Result requeue(TopicDefinition topic, SlotKeys slotKeys, int slot, String key,
                                           long diedAtMs, byte[] raw) {
        String wake = keys.wakeChannel(topic.name());
        Envelope dead;
        try {
            dead = Envelope.decode(raw);
        } catch (MalformedEnvelopeException e) {
            // its consumer cannot read it either, and sends it dead again as undecodable
            log.warn("topic {}: dead message '{}' of slot {} cannot be read, so it is requeued as it is and the"
                    + " journal does not hold it: {}", topic.name(), key, slot, e.getMessage());
            return Futures.join(scripts.run(slotKeys, new DeadRequeueCall(topic.type(), key, wake, slot)));
        }
        Map<String, String> headers = new LinkedHashMap<>(dead.headers());
        headers.put(MessageJournal.SEND_ID_HEADER, SendIds.next());
        byte[] replacement = Envelope.encodeStored(0, dead.score(), 0, 0, "", headers, dead.payload());
        DeadRequeueCall.Result result = Futures.join(scripts.run(slotKeys,
                new DeadRequeueCall(topic.type(), key, wake, slot, replacement, diedAtMs)));
        if (result == DeadRequeueCall.Result.REQUEUED) {
            // due now by the Redis clock, which the journal has by this one, or at its priority
            Instant now = Instant.now();
            long score = topic.type() == TopicType.PRIORITY ? (long) dead.score() : now.toEpochMilli();
            Futures.join(journal.sent(List.of(new JournaledSend(topic.name(), topic.type(), slot, key, false, false,
                    false, score, null, null, headers, dead.payload(), now))).toCompletableFuture());
        }
        return result;
    }
}
