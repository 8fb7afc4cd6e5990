package dev.rmq.spring.actuate;

import dev.rmq.codec.PayloadForm;
import dev.rmq.dead.DeadMessage;
import dev.rmq.inspect.SlotCounts;
import dev.rmq.consumer.Progress;
import dev.rmq.journal.MessageHistory;
import dev.rmq.producer.StoredMessage;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.rmq.topic.TopicDescription;
import dev.rmq.topic.TopicType;
import org.jspecify.annotations.Nullable;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/** What the {@code rmq} endpoint answers, as JSON. */
public final class RmqEndpointViews {

    /** The most payload characters shown per message; the rest is cut, so a page stays readable. */
    static final int PAYLOAD_PREVIEW = 4096;
    /** What an encrypted payload shows as. */
    static final String ENCRYPTED = "(encrypted)";

    private RmqEndpointViews() {
    }

    /** What {@code GET /actuator/rmq} shows. */
    public record Overview(String instance, String assignment, @Nullable String zone, boolean writeOperations,
                           List<TopicSummary> topics) {
    }

    /**
     * One topic: its {@link TopicDescription}, as rmq-server shows it too, then its {@code state} ({@code running},
     * {@code paused} or {@code partly paused (n of m slots)}), where its messages are, and its listener containers.
     */
    public record TopicSummary(@JsonUnwrapped TopicDescription definition, String state, long backlog, long inFlight,
                               long dead, Counts counts, List<ListenerSummary> listeners) {
    }

    /**
     * Where messages are: see {@link SlotCounts}. {@code waiting} is dueNow + later + parked; {@code dueAgeMs} how long
     * the oldest due message has waited since its due time (time types; 0 when none is due).
     */
    public record Counts(long waiting, long dueNow, long later, long retrying, long parked, long inFlight, long dead,
                         long dueAgeMs) {

        static Counts of(SlotCounts counts) {
            return new Counts(counts.waiting(), counts.dueNow(), counts.later(), counts.retrying(), counts.parked(),
                    counts.inFlight(), counts.dead(), counts.dueAgeMs());
        }
    }

    public record ListenerSummary(String id, boolean running, int concurrency, int ownedSlots) {
    }

    /** {@code messages}: the page asked for with {@code view}, else null. */
    public record TopicDetail(String name, String type, String state, long backlog, long inFlight, long dead,
                              Counts counts, Map<String, Counts> zones, List<SlotDetail> slots,
                              @Nullable MessagePage messages) {
    }

    /** {@code planned} is the worker ZooKeeper's plan gives the slot; null without coordination. */
    public record SlotDetail(int slot, @Nullable String zone, boolean paused, long backlog, long inFlight, long dead,
                             Counts counts, List<String> owners, @Nullable String planned) {
    }

    /** One slot, and the page of it that {@code view} asked for: its dead messages by default. */
    public record SlotPage(String topic, int slot, long backlog, long inFlight, long dead, Counts counts,
                           List<String> owners, long offset, @Nullable List<DeadEntry> deadMessages,
                           @Nullable MessagePage messages) {
    }

    /** A dead message; {@code reason} is why it died as a code ({@code expired}, {@code retries_spent}, ...). */
    public record DeadEntry(String key, String diedAt, int attempts, String reason, String lastError,
                            Map<String, String> headers, String payload, int payloadBytes) {

        static DeadEntry of(DeadMessage message) {
            return new DeadEntry(message.key(), message.diedAt().toString(), message.attempts(), message.reason().code(),
                    message.lastError(), message.headers(), preview(message.headers(), message.payload()),
                    message.payload().length);
        }
    }

    /**
     * A page of waiting messages in consume order, or of in-flight ones by lease deadline. {@code offset} is null for
     * a page by cursor; {@code next} is the cursor of the next page of waiting messages (null at the end, and for a
     * page by an offset past 0 or of a slot).
     */
    public record MessagePage(String view, @Nullable Long offset, int limit, List<MessageEntry> entries,
                              @Nullable String next) {
    }

    /**
     * One queued message. Of {@code dueTime}, {@code priority}, {@code visibleAt} and {@code leaseDeadline}, those
     * that apply to its state are set; {@code progress} is what the handler of a message in flight last reported.
     */
    public record MessageEntry(String key, int slot, String state, @Nullable String dueTime, @Nullable Long priority,
                               @Nullable String visibleAt, @Nullable String leaseDeadline,
                               @Nullable Progress progress, int attempts,
                               String lastError, Map<String, String> headers, String payload, int payloadBytes) {

        static MessageEntry of(StoredMessage message, TopicType type) {
            OptionalLong priority = message.priority(type);
            return new MessageEntry(message.key(), message.slot(), message.state().name(),
                    message.dueTime(type).map(Instant::toString).orElse(null),
                    priority.isPresent() ? priority.getAsLong() : null,
                    message.visibleAt().map(Instant::toString).orElse(null),
                    message.leaseDeadline().map(Instant::toString).orElse(null), message.progress().orElse(null),
                    message.attempts(), message.lastError(), message.headers(), preview(message.headers(), message.payload()),
                    message.payload().length);
        }
    }

    /** A key's messages in the journal, the latest first. */
    public record HistoryPage(String topic, String key, List<HistoryEntry> messages) {
    }

    /** One message of a key as the journal recorded it; {@code score} is its due time (epoch ms) or priority. */
    public record HistoryEntry(int slot, String type, long score, String state, boolean finished, int attempts,
                               String sentAt, String updatedAt, Map<String, String> headers, String payload,
                               int payloadBytes, List<MessageHistory.Transition> transitions) {

        static HistoryEntry of(MessageHistory message) {
            return new HistoryEntry(message.slot(), message.type().name(), message.score(), message.state(),
                    message.finished(), message.attempts(), message.sentAt().toString(),
                    message.updatedAt().toString(), message.headers(), preview(message.headers(), message.payload()),
                    message.payload().length, message.transitions());
        }
    }

    /** The payload's first characters; an encrypted payload, which inspection never decrypts, as {@code (encrypted)}. */
    private static String preview(Map<String, String> headers, byte[] payload) {
        if (PayloadForm.isEncrypted(headers)) {
            return ENCRYPTED;
        }
        String text = new String(payload, StandardCharsets.UTF_8);
        return text.length() > PAYLOAD_PREVIEW ? text.substring(0, PAYLOAD_PREVIEW) + "…" : text;
    }
}
