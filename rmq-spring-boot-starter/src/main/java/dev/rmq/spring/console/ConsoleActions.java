package dev.rmq.spring.console;

import dev.rmq.RmqClient;
import dev.rmq.admin.PauseState;
import dev.rmq.producer.MessageRef;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

/**
 * What the console's controls do, through the client's admin, dead queue and producer, each logged as an audit line:
 * who, what, on which topic and key, and what came of it.
 */
final class ConsoleActions {

    /** The audit log: one INFO line for every write, apart from rmq's other logs so that it can be kept longer. */
    private static final Logger audit = LoggerFactory.getLogger("dev.rmq.console.audit");

    /**
     * What a control asks: its action, topic, and the key, slot and time it needs; the slot basis of a message sent
     * with one other than its key, else empty.
     */
    record Request(String action, String topic, String key, @Nullable Integer slot, String at, String basis) {
    }

    private final ConsoleData data;
    private final @Nullable ConsoleJournal journal;

    ConsoleActions(ConsoleData data, @Nullable ConsoleJournal journal) {
        this.data = data;
        this.journal = journal;
    }

    /**
     * Does what {@code request} asks, on behalf of {@code who}.
     *
     * @return what happened, for a person to read
     * @throws IllegalArgumentException for an unknown action or topic, or a missing key, slot or time
     */
    String perform(Request request, String who) {
        if (request.action().startsWith("restore")) {
            return restore(request, who);
        }
        data.topic(request.topic());
        String result;
        try {
            result = run(request);
        } catch (RuntimeException e) {
            audit.info("{} asked to {} {}{}: it failed: {}", who, request.action(), request.topic(), keyOf(request),
                    e.toString());
            throw e;
        }
        data.changed(request.topic());
        audit.info("{} asked to {} {}{}: {}", who, request.action(), request.topic(), keyOf(request), result);
        return result;
    }

    /** A restore of every topic from the journal, or its dry run. */
    private String restore(Request request, String who) {
        ConsoleJournal from = journal;
        if (from == null) {
            throw new IllegalArgumentException("this application has no journal to restore from");
        }
        boolean dryRun = switch (request.action()) {
            case "restore" -> false;
            case "restore-dry-run" -> true;
            default -> throw new IllegalArgumentException("unknown action '" + request.action() + "'");
        };
        String result = from.restore(dryRun);
        audit.info("{} asked to {} every topic: {}", who, dryRun ? "dry-run a restore of" : "restore", result);
        return result;
    }

    private String run(Request request) {
        RmqClient client = data.client();
        String topic = request.topic();
        return switch (request.action()) {
            case "pause" -> describe(client.admin().pause(topic));
            case "resume" -> describe(client.admin().resume(topic));
            case "requeue-all" -> client.deadQueue().requeueAll(topic) + " dead message(s) requeued";
            case "purge" -> client.deadQueue().purge(topic) + " dead message(s) deleted";
            case "requeue" -> client.deadQueue().requeue(topic, slot(request), key(request)) ? "requeued"
                    : "not in the dead queue any more";
            case "delete" -> client.deadQueue().delete(topic, slot(request), key(request)) ? "deleted"
                    : "not in the dead queue any more";
            case "cancel" -> client.producer().cancel(ref(request)) ? "cancelled"
                    : "nothing waited or ran under that key any more";
            case "now" -> client.producer().reschedule(ref(request), Instant.now())
                    ? "due now" : "nothing waited under that key any more";
            case "reschedule" -> {
                Instant at = at(request);
                yield client.producer().reschedule(ref(request), at)
                        ? "rescheduled to " + Html.time(at) : "nothing waited under that key any more";
            }
            default -> throw new IllegalArgumentException("unknown action '" + request.action() + "'; the console"
                    + " knows pause, resume, requeue-all, purge, requeue, delete, cancel, now, reschedule, restore and"
                    + " restore-dry-run");
        };
    }

    private static String describe(PauseState state) {
        return "the topic is " + state.describe();
    }

    private static String key(Request request) {
        if (request.key().isEmpty()) {
            throw new IllegalArgumentException(request.action() + " needs the message's key");
        }
        return request.key();
    }

    private static MessageRef ref(Request request) {
        MessageRef ref = MessageRef.of(request.topic(), key(request));
        return request.basis().isEmpty() ? ref : ref.withSlotBasis(request.basis());
    }

    private static int slot(Request request) {
        if (request.slot() == null) {
            throw new IllegalArgumentException(request.action() + " needs the dead message's slot");
        }
        return request.slot();
    }

    /** The time of a reschedule: an ISO instant, or a date and time as a form gives it, read as UTC. */
    private static Instant at(Request request) {
        try {
            return request.at().endsWith("Z") ? Instant.parse(request.at())
                    : LocalDateTime.parse(request.at()).toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("reschedule needs a time such as 2026-12-01T09:30:00 (UTC), was '"
                    + request.at() + "'");
        }
    }

    private static String keyOf(Request request) {
        return request.key().isEmpty() ? "" : " key '" + request.key() + "'";
    }
}
