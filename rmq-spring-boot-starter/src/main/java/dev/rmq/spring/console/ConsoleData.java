package dev.rmq.spring.console;

import dev.rmq.RmqClient;
import dev.rmq.dead.DeadMessage;
import dev.rmq.inspect.TopicCounts;
import dev.rmq.journal.MessageHistory;
import dev.rmq.journal.NoJournalException;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.StoredMessage;
import dev.rmq.spring.actuate.SlotOwners;
import dev.rmq.topic.TopicDefinition;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the console reads, through the client's inspector and dead queue only. Each topic's counts are read at most
 * once per refresh, however many pages ask: the pages, their refreshes and the history's samples share them.
 */
final class ConsoleData {

    /** The most dead messages one page of a filtered dead queue reads through, slot by slot. */
    static final int DEAD_SCAN = 2_000;

    private final RmqClient client;
    private final SlotOwners owners;
    private final long reuseNanos;
    private final Map<String, Read> counts = new ConcurrentHashMap<>();

    private record Read(TopicCounts counts, long atNanos) {
    }

    ConsoleData(RmqClient client, SlotOwners owners, Duration refresh) {
        this.client = client;
        this.owners = owners;
        this.reuseNanos = refresh.toNanos();
    }

    RmqClient client() {
        return client;
    }

    SlotOwners owners() {
        return owners;
    }

    List<TopicDefinition> topics() {
        return client.topics().all().stream().toList();
    }

    /** @throws IllegalArgumentException for a topic the client does not know */
    TopicDefinition topic(String name) {
        if (!client.topics().contains(name)) {
            throw new IllegalArgumentException("no topic '" + name + "'; the topics are "
                    + topics().stream().map(TopicDefinition::name).toList());
        }
        return client.topics().require(name);
    }

    /** The topic's counts, read from Redis at most once per refresh. */
    TopicCounts counts(String topic) {
        long now = System.nanoTime();
        return counts.compute(topic, (name, read) -> read != null && now - read.atNanos() < reuseNanos ? read
                : new Read(client.inspector().counts(name), System.nanoTime())).counts();
    }

    /** Forgets the topic's counts, after the console changed the topic. */
    void changed(String topic) {
        counts.remove(topic);
    }

    /** @param basis the message's slot basis when it was sent with one other than its key, else empty */
    Optional<StoredMessage> find(String topic, String key, String basis) {
        MessageRef ref = MessageRef.of(topic, key);
        return client.inspector().find(basis.isEmpty() ? ref : ref.withSlotBasis(basis));
    }

    /**
     * What the journal holds of the key's messages, the latest first; empty without a journal, or when it keeps
     * no history.
     */
    List<MessageHistory> history(String topic, String key) {
        try {
            return client.inspector().history(topic, key);
        } catch (NoJournalException | UnsupportedOperationException e) {
            return List.of();
        }
    }

    /** The next {@code limit} messages in consume order. */
    List<StoredMessage> next(String topic, int limit) {
        return client.inspector().peek(topic, 0, limit);
    }

    /** The topic's deliveries in flight, the earliest lease deadline first. */
    List<StoredMessage> inFlight(String topic, int limit) {
        return client.inspector().inFlight(topic, 0, limit);
    }

    /** One slot's deliveries in flight, the earliest lease deadline first. */
    List<StoredMessage> inFlight(String topic, int slot, int limit) {
        return client.inspector().inFlight(topic, slot, 0, limit);
    }

    /**
     * A page of the topic's dead messages, slot by slot, the newest of each slot first; with a filter, those whose
     * key, reason or last error holds it (ignoring case), among the first {@value #DEAD_SCAN} read.
     */
    DeadPage dead(String topic, String filter, int offset, int limit) {
        String needle = filter.toLowerCase(Locale.ROOT);
        List<DeadMessage> page = new ArrayList<>();
        int matched = 0;
        int read = 0;
        boolean more = false;
        for (int slot = 0; slot < topic(topic).slotAmount() && !more && read < DEAD_SCAN; slot++) {
            for (long from = 0; read < DEAD_SCAN; ) {
                List<DeadMessage> chunk = client.deadQueue().list(topic, slot, from, 200);
                read += chunk.size();
                from += chunk.size();
                for (DeadMessage message : chunk) {
                    if (!needle.isEmpty() && !matches(message, needle)) {
                        continue;
                    }
                    if (matched++ < offset) {
                        continue;
                    }
                    if (page.size() == limit) {
                        more = true;
                        break;
                    }
                    page.add(message);
                }
                if (more || chunk.size() < 200) {
                    break;
                }
            }
        }
        return new DeadPage(page, more, read >= DEAD_SCAN);
    }

    private static boolean matches(DeadMessage message, String needle) {
        return message.key().toLowerCase(Locale.ROOT).contains(needle)
                || message.lastError().toLowerCase(Locale.ROOT).contains(needle)
                || message.reason().name().toLowerCase(Locale.ROOT).contains(needle);
    }

    /**
     * @param messages  the page
     * @param more      whether more match after it
     * @param truncated whether the search stopped at {@value #DEAD_SCAN} messages read
     */
    record DeadPage(List<DeadMessage> messages, boolean more, boolean truncated) {
    }
}
