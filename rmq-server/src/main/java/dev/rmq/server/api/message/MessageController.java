package dev.rmq.server.api.message;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.rmq.RmqClient;
import dev.rmq.exceptions.RmqException;
import dev.rmq.producer.BacklogFullException;
import dev.rmq.producer.BatchSendException;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.RmqProducer;
import dev.rmq.producer.SendOutcome;
import dev.rmq.producer.SendReceipt;
import dev.rmq.producer.TimeInPastException;
import dev.rmq.server.api.Api;
import dev.rmq.server.api.JsonBody;
import dev.rmq.server.api.MessageView;
import dev.rmq.server.api.Payloads;
import dev.rmq.server.api.problem.ApiException;
import dev.rmq.server.api.problem.Problem;
import dev.rmq.server.api.problem.ProblemJson;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.util.UriComponentsBuilder;
import tools.jackson.databind.JsonNode;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Sending messages, one or a batch, and operating on one by key: look it up, cancel it, move it to another due
 * time or priority. A message sent with an explicit slot basis is found again only with the same basis, given as
 * the {@code slotBasis} query parameter, since the basis decides its slot.
 */
@RestController
@RequestMapping(Api.V1 + "/topics/{topic}")
public class MessageController {

    /** The most messages one batch may hold: a batch is one round trip per Redis node, and one JSON body. */
    public static final int MAX_BATCH = 1000;

    private final RmqClient client;
    private final RmqProducer producer;
    private final Payloads payloads;
    private final ProblemJson problems;

    public MessageController(RmqClient client, RmqProducer producer, Payloads payloads, ProblemJson problems) {
        this.client = client;
        this.producer = producer;
        this.payloads = payloads;
        this.problems = problems;
    }

    @PostMapping("/messages")
    public ResponseEntity<ReceiptView> send(@PathVariable String topic, @RequestBody JsonNode body) {
        TopicDefinition definition = client.topics().require(topic);
        OutgoingMessage message = MessageRequests.parse(definition, JsonBody.of(body));
        SendOutcome outcome = sendOne(message);
        if (outcome.receipt() == null) {
            throw failure(outcome);
        }
        ReceiptView receipt = ReceiptView.of(receiptOf(outcome));
        // a send its repeated-key rule left out (kept, throttled) created nothing: 200 with what happened
        return outcome.status() == SendOutcome.Status.DUPLICATE ? ResponseEntity.ok(receipt)
                : ResponseEntity.created(location(topic, receipt.key(), message.slotBasis())).body(receipt);
    }

    /**
     * Up to {@value #MAX_BATCH} messages in one call, as {@code {"messages": [...]}}. Each is checked before any is
     * sent, so a malformed one refuses the whole batch; once sent, each has its own outcome: stored, duplicate,
     * refused or unknown. 201 when every message was stored, 200 when some were not.
     */
    @PostMapping("/messages:batch")
    public ResponseEntity<BatchView> sendBatch(@PathVariable String topic, @RequestBody JsonNode body) {
        TopicDefinition definition = client.topics().require(topic);
        JsonBody batch = JsonBody.of(body).allowOnly(List.of("messages"));
        List<JsonNode> elements = batch.requireArray("messages", "the messages to send, each as one message's body");
        if (elements.isEmpty() || elements.size() > MAX_BATCH) {
            throw new ApiException(Problem.INVALID_ARGUMENT, "a batch holds 1 to " + MAX_BATCH + " messages, was "
                    + elements.size() + "; send a larger one in several calls");
        }
        List<OutgoingMessage> messages = new ArrayList<>(elements.size());
        for (int i = 0; i < elements.size(); i++) {
            messages.add(parseElement(definition, elements.get(i), i));
        }
        List<SendOutcome> outcomes = sendAll(messages);
        List<BatchView.Item> results = new ArrayList<>(outcomes.size());
        int stored = 0;
        int duplicates = 0;
        int refused = 0;
        for (int i = 0; i < outcomes.size(); i++) {
            SendOutcome outcome = outcomes.get(i);
            switch (outcome.status()) {
                case STORED, DUPLICATE -> {
                    stored += outcome.status() == SendOutcome.Status.STORED ? 1 : 0;
                    duplicates += outcome.status() == SendOutcome.Status.DUPLICATE ? 1 : 0;
                    results.add(BatchView.Item.answered(i, outcome.status().name(), ReceiptView.of(receiptOf(outcome))));
                }
                case REFUSED, UNKNOWN -> {
                    refused += outcome.status() == SendOutcome.Status.REFUSED ? 1 : 0;
                    ProblemDetail problem = failure(outcome).toProblemDetail();
                    results.add(BatchView.Item.failed(i, outcome.status().name(), problems.render(problem)));
                }
            }
        }
        BatchView view = new BatchView(stored, duplicates, refused, outcomes.size() - stored - duplicates - refused,
                results);
        return ResponseEntity.status(stored == outcomes.size() ? HttpStatus.CREATED : HttpStatus.OK).body(view);
    }

    @GetMapping("/messages/{key}")
    public MessageView get(@PathVariable String topic, @PathVariable String key,
                           @RequestParam(required = false) @Nullable String slotBasis) {
        TopicDefinition definition = client.topics().require(topic);
        MessageRef ref = new MessageRef(topic, key, slotBasis);
        return client.inspector().find(ref).map(message -> MessageView.of(message, definition.type(), payloads))
                .orElseThrow(() -> new ApiException(Problem.NOT_FOUND, "topic '" + topic + "' holds no message with"
                        + " key '" + key + "'" + basis(slotBasis) + ": it was never sent, or it was consumed, cancelled"
                        + " or deleted"));
    }

    /**
     * Cancels the message of a key: the one that waits or retries, and its delivery in flight, whose holder's settle
     * then answers {@code CANCELLED}. A dead one is left alone.
     */
    @DeleteMapping("/messages/{key}")
    public CancelView cancel(@PathVariable String topic, @PathVariable String key,
                             @RequestParam(required = false) @Nullable String slotBasis) {
        client.topics().require(topic);
        if (!producer.cancel(new MessageRef(topic, key, slotBasis))) {
            throw new ApiException(Problem.NOT_FOUND, "topic '" + topic + "' has no message with key '" + key
                    + "'" + basis(slotBasis) + " to cancel, waiting or in flight: it is not there, or it is dead, which"
                    + " a cancel leaves alone");
        }
        return new CancelView(topic, key, true);
    }

    /**
     * Moves a waiting message: {@code {"dueTime": ...}} on a range-merge or fixed-time topic; {@code {"priority":
     * ...}}, or {@code {"notBefore": ...}} to hold it back until then, on a priority topic.
     */
    @PostMapping("/messages/{key}/reschedule")
    public RescheduleView reschedule(@PathVariable String topic, @PathVariable String key,
                                     @RequestParam(required = false) @Nullable String slotBasis,
                                     @RequestBody JsonNode body) {
        TopicDefinition definition = client.topics().require(topic);
        JsonBody request = JsonBody.of(body).allowOnly(List.of("dueTime", "priority", "notBefore"));
        MessageRef ref = new MessageRef(topic, key, slotBasis);
        RescheduleView done;
        boolean moved;
        if (definition.type() == TopicType.PRIORITY) {
            if (request.has("dueTime")) {
                throw new ApiException(Problem.BAD_TYPE, "field 'dueTime' does not apply to topic '" + topic + "', a"
                        + " PRIORITY topic: give 'priority' to reprioritize its message, or 'notBefore' to hold it back");
            }
            if (request.has("notBefore")) {
                if (request.has("priority")) {
                    throw new ApiException(Problem.INVALID_ARGUMENT, "give 'priority' or 'notBefore', one per call:"
                            + " each is a change of its own");
                }
                Instant notBefore = requireInstant(request, "notBefore", "the instant before which the message is not"
                        + " taken (a time now or past makes it visible at once)");
                moved = producer.reschedule(ref, notBefore);
                done = new RescheduleView(topic, key, null, null, notBefore.truncatedTo(ChronoUnit.MILLIS).toString());
            } else {
                long priority = MessageRequests.checkPriority("priority", requirePriority(request, topic));
                moved = producer.reprioritize(ref, priority);
                done = new RescheduleView(topic, key, null, priority, null);
            }
        } else {
            if (request.has("priority") || request.has("notBefore")) {
                throw new ApiException(Problem.BAD_TYPE, "field '" + (request.has("priority") ? "priority" : "notBefore")
                        + "' does not apply to topic '" + topic + "', a " + definition.type() + " topic: give 'dueTime'"
                        + " to reschedule its message");
            }
            Instant due = requireInstant(request, "dueTime", "the new instant the message is due");
            try {
                moved = producer.reschedule(ref, due);
            } catch (TimeInPastException e) {
                throw timeInPast(e, "nothing was changed");
            }
            // the due time as Redis keeps it, to the millisecond, as a GET of the message shows it
            done = new RescheduleView(topic, key, due.truncatedTo(ChronoUnit.MILLIS).toString(), null, null);
        }
        if (!moved) {
            throw new ApiException(Problem.NOT_FOUND, "topic '" + topic + "' has no waiting message with key '" + key
                    + "'" + basis(slotBasis) + " to move: it is not there, or it is in flight or dead");
        }
        return done;
    }

    /** The body's instant {@code field}, which must be there and after the epoch; {@code what} says what it means. */
    private static Instant requireInstant(JsonBody request, String field, String what) {
        Instant value = request.instant(field);
        if (value == null) {
            throw new ApiException(Problem.MALFORMED_BODY, "field '" + field + "' is required: " + what + ", such as"
                    + " 2030-01-01T12:00:00Z");
        }
        // compared, not converted: toEpochMilli overflows on the farthest instants, which the send then refuses
        if (!value.isAfter(Instant.EPOCH)) {
            throw new ApiException(Problem.INVALID_ARGUMENT, "field '" + field + "' must be after 1970-01-01T00:00:00Z,"
                    + " was " + value);
        }
        return value;
    }

    private OutgoingMessage parseElement(TopicDefinition topic, JsonNode element, int index) {
        try {
            return MessageRequests.parse(topic, JsonBody.object(element, "messages[" + index + "]"));
        } catch (ApiException e) {
            throw e.with("index", index);
        } catch (IllegalArgumentException e) {
            throw new ApiException(Problem.INVALID_ARGUMENT, "messages[" + index + "]: " + e.getMessage(), e)
                    .with("index", index);
        }
    }

    /**
     * One message's outcome, by a single send rather than a batch of one: it shares a call with the sends to its
     * slot that come together, keeps no reply in Redis for a replay, and fails a third as late when Redis does not
     * answer (a batch's pipeline sends a failed call twice more). Arguments rmq refuses before sending still throw.
     */
    private SendOutcome sendOne(OutgoingMessage message) {
        try {
            return SendOutcome.of(message, producer.send(message));
        } catch (BatchSendException e) {
            return e.outcomes().get(0); // a send that waits for replicas goes as a batch
        } catch (BacklogFullException | TimeInPastException e) {
            return SendOutcome.refused(message, e);
        } catch (RmqException e) {
            return SendOutcome.unknown(message, e);
        }
    }

    /** Every message's outcome, in order; a batch with refusals fails as a whole only in rmq's API, not here. */
    private List<SendOutcome> sendAll(List<OutgoingMessage> messages) {
        try {
            List<SendReceipt> receipts = producer.sendAll(messages);
            List<SendOutcome> outcomes = new ArrayList<>(receipts.size());
            for (int i = 0; i < receipts.size(); i++) {
                outcomes.add(SendOutcome.of(messages.get(i), receipts.get(i)));
            }
            return outcomes;
        } catch (BatchSendException e) {
            return e.outcomes();
        }
    }

    /** The receipt of a message that was stored or left out as a duplicate. */
    private static SendReceipt receiptOf(SendOutcome outcome) {
        return Objects.requireNonNull(outcome.receipt(), "a stored or duplicate outcome has its receipt");
    }

    /** The problem of a message that was not stored. */
    private static ApiException failure(SendOutcome outcome) {
        RuntimeException error = Objects.requireNonNull(outcome.error(), "an outcome not stored has its error");
        if (outcome.status() == SendOutcome.Status.UNKNOWN) {
            return new ApiException(Problem.UNAVAILABLE, "Redis did not answer for the message, which may or may not"
                    + " be stored (" + error.getMessage() + "); sending it again is safe while it waits, as a send of"
                    + " its key merges into it", error);
        }
        if (error instanceof BacklogFullException full) {
            return new ApiException(Problem.BACKLOG_FULL, full.getMessage(), full);
        }
        if (error instanceof TimeInPastException late) {
            return timeInPast(late, "nothing was sent");
        }
        return new ApiException(Problem.INVALID_ARGUMENT, error.getMessage(), error);
    }

    /** A fixed time behind the Redis clock, in the request's terms: its field, and instants in ISO-8601. */
    private static ApiException timeInPast(TimeInPastException e, String consequence) {
        return new ApiException(Problem.TIME_IN_PAST, "field 'dueTime' (" + e.time() + ") lies "
                + Duration.between(e.time(), e.redisClock()) + " behind the clock of Redis (" + e.redisClock()
                + "), by which every due time is read; topic '" + e.topic() + "' takes a dueTime at most "
                + e.tolerance() + " in the past (its late tolerance); " + consequence, e);
    }

    private static long requirePriority(JsonBody request, String topic) {
        Long priority = request.integer("priority");
        if (priority == null) {
            throw new ApiException(Problem.MALFORMED_BODY, "field 'priority' is required: the new priority of the"
                    + " message in PRIORITY topic '" + topic + "', an integer from "
                    + (OutgoingMessage.RESERVED_PRIORITY_MAX + 1) + " up");
        }
        return priority;
    }

    private static String basis(@Nullable String slotBasis) {
        return slotBasis == null ? "" : " and slot basis '" + slotBasis + "'";
    }

    private static URI location(String topic, String key, @Nullable String slotBasis) {
        UriComponentsBuilder uri = UriComponentsBuilder.fromPath(Api.V1).pathSegment("topics", topic, "messages", key);
        if (slotBasis != null) {
            uri.queryParam("slotBasis", slotBasis);
        }
        return uri.build().encode().toUri();
    }

    /** What a cancel did. */
    public record CancelView(String topic, String key, boolean cancelled) {
    }

    /** Where a message was moved: its new due time, or its new priority. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record RescheduleView(String topic, String key, @Nullable String dueTime, @Nullable Long priority,
                                 @Nullable String notBefore) {
    }
}
