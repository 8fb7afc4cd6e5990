package dev.rmq.server.api.delivery;

import dev.rmq.RmqClient;
import dev.rmq.consumer.AckOutcome;
import dev.rmq.pull.Settlement;
import dev.rmq.server.api.Api;
import dev.rmq.server.api.JsonBody;
import dev.rmq.server.api.problem.ApiException;
import dev.rmq.server.api.problem.Problem;
import dev.rmq.server.pull.Delivery;
import dev.rmq.server.pull.ServerPuller;
import org.jspecify.annotations.Nullable;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Consuming over HTTP, in two phases: a pull hands out due messages, each under a lease and a token, and the
 * client settles each by its token (ack, retry, retry now, dead) or extends its lease. A message not settled
 * within its lease is delivered again, so a client that dies loses nothing. A settle with a token the server no
 * longer holds is {@code lease-expired}: nothing was done.
 */
@RestController
@RequestMapping(Api.V1)
public class DeliveryController {

    /** The longest failure reason kept: it travels with the message into Redis and the dead queue. */
    static final int MAX_REASON_LENGTH = 1000;

    /** The shortest lease extension; compared, not converted, as toMillis overflows on the longest durations. */
    private static final Duration ONE_MS = Duration.ofMillis(1);

    private final ServerPuller puller;
    private final RmqClient client;

    public DeliveryController(ServerPuller puller, RmqClient client) {
        this.puller = puller;
        this.client = client;
    }

    /**
     * {@code {"topics": [...], "count": n, "timeout": "PT10S"}}, each optional: up to {@code count} (1 by default)
     * due messages of the topics (all by default), at once when some are due; otherwise waits up to {@code timeout}
     * (none by default) for the first, and answers with none if none came.
     */
    @PostMapping("/pull")
    public PullView pull(@RequestBody(required = false) @Nullable JsonNode body) {
        JsonBody request = JsonBody.optional(body).allowOnly(List.of("topics", "count", "timeout"));
        List<String> topics = request.strings("topics");
        if (topics == null) {
            topics = List.of();
        }
        topics.forEach(topic -> client.topics().require(topic));
        Long count = request.integer("count");
        if (count == null) {
            count = 1L;
        }
        if (count < 1 || count > puller.maxCount()) {
            throw new ApiException(Problem.INVALID_ARGUMENT, "field 'count' must be between 1 and "
                    + puller.maxCount() + ", was " + count);
        }
        Duration timeout = request.duration("timeout");
        if (timeout == null) {
            timeout = Duration.ZERO;
        }
        if (timeout.isNegative() || timeout.compareTo(puller.maxWait()) > 0) {
            throw new ApiException(Problem.INVALID_ARGUMENT, "field 'timeout' must be between PT0S and "
                    + puller.maxWait() + " (rmq.server.pull.max-wait), was " + timeout);
        }
        List<Delivery> got = puller.pull(count.intValue(), timeout, topics);
        return new PullView(got.stream().map(DeliveryView::of).toList());
    }

    /** Done: the message leaves Redis. */
    @PostMapping("/deliveries/{token}/ack")
    public OutcomeView ack(@PathVariable String token) {
        return new OutcomeView(puller.settle(token, Settlement.ACK, null).name(), null, null);
    }

    /** Failed: retried after the topic's backoff, or dead once its retries are spent. */
    @PostMapping("/deliveries/{token}/retry")
    public OutcomeView retry(@PathVariable String token, @RequestBody(required = false) @Nullable JsonNode body) {
        return settle(token, Settlement.RETRY, body);
    }

    /** Failed: retried at once, skipping the backoff; it still counts as an attempt. */
    @PostMapping("/deliveries/{token}/retry-now")
    public OutcomeView retryNow(@PathVariable String token, @RequestBody(required = false) @Nullable JsonNode body) {
        return settle(token, Settlement.RETRY_NOW, body);
    }

    /** Failed for good: moved to the dead queue with its reason. */
    @PostMapping("/deliveries/{token}/dead")
    public OutcomeView dead(@PathVariable String token, @RequestBody(required = false) @Nullable JsonNode body) {
        return settle(token, Settlement.DEAD, body);
    }

    /**
     * Handed back without handling it: due again at once at its place, not counted as an attempt; dead once
     * released more often than the topic's {@code maxReleases} allow.
     */
    @PostMapping("/deliveries/{token}/release")
    public OutcomeView release(@PathVariable String token) {
        return new OutcomeView(puller.settle(token, Settlement.RELEASE, null).name(), null, null);
    }

    /** {@code {"duration": "PT1M"}}: the lease now ends that long from now, by the Redis clock. */
    @PostMapping("/deliveries/{token}/extend")
    public OutcomeView extend(@PathVariable String token, @RequestBody(required = false) @Nullable JsonNode body) {
        JsonBody request = JsonBody.of(body).allowOnly(List.of("duration"));
        Duration duration = request.duration("duration");
        if (duration == null) {
            throw new ApiException(Problem.MALFORMED_BODY, "field 'duration' is required: how long from now the"
                    + " lease should last, an ISO-8601 duration such as PT1M");
        }
        if (duration.compareTo(ONE_MS) < 0) {
            throw new ApiException(Problem.INVALID_ARGUMENT, "field 'duration' must be at least 1 ms, was " + duration
                    + "; to hand the message back at once, POST .../release");
        }
        ServerPuller.Extended extended = puller.extend(token, duration);
        return new OutcomeView("EXTENDED", extended.leaseDeadline().toString(), extended.token());
    }

    /**
     * {@code {"percent": 40, "note": "rows 400 of 1000", "extendLease": "PT5M"}}: records how far the handling has
     * come, for the message look-up to show beside its lease deadline until it is settled. {@code note} is optional
     * (at most 500 characters); with {@code extendLease} the lease is extended in the same call, and the answer
     * carries the new token, as an extension's does; without it the token stays.
     */
    @PostMapping("/deliveries/{token}/progress")
    public OutcomeView progress(@PathVariable String token, @RequestBody(required = false) @Nullable JsonNode body) {
        JsonBody request = JsonBody.of(body).allowOnly(List.of("percent", "note", "extendLease"));
        Long percent = request.integer("percent");
        if (percent == null) {
            throw new ApiException(Problem.MALFORMED_BODY, "field 'percent' is required: how far the handling has"
                    + " come, from 0 to 100");
        }
        if (percent < 0 || percent > 100) {
            throw new ApiException(Problem.INVALID_ARGUMENT, "field 'percent' must be from 0 to 100, was " + percent);
        }
        String note = request.string("note");
        Duration extendLease = request.duration("extendLease");
        if (extendLease != null && extendLease.compareTo(ONE_MS) < 0) {
            throw new ApiException(Problem.INVALID_ARGUMENT, "field 'extendLease' must be at least 1 ms, was "
                    + extendLease + "; leave it out to keep the lease");
        }
        ServerPuller.Extended after = puller.reportProgress(token, percent.intValue(), note == null ? "" : note,
                extendLease);
        return new OutcomeView("PROGRESS_RECORDED", after.leaseDeadline().toString(), after.token());
    }

    /**
     * {@code {"tokens": [...]}}: acknowledges many messages in one Redis call per slot. Each token has its own
     * outcome; one not held (settled, expired, unknown) is {@code STALE}, and nothing was done for it.
     */
    @PostMapping("/deliveries:ack")
    public AckAllView ackAll(@RequestBody JsonNode body) {
        JsonBody request = JsonBody.of(body).allowOnly(List.of("tokens"));
        List<String> tokens = request.strings("tokens");
        if (tokens == null) {
            throw new ApiException(Problem.MALFORMED_BODY, "field 'tokens' is required: the delivery tokens to"
                    + " acknowledge");
        }
        if (tokens.isEmpty() || tokens.size() > puller.maxCount()) {
            throw new ApiException(Problem.INVALID_ARGUMENT, "field 'tokens' must hold 1 to " + puller.maxCount()
                    + " tokens, held " + tokens.size());
        }
        List<AckOutcome> outcomes = puller.ackAll(tokens);
        List<AckAllView.Result> results = new ArrayList<>(tokens.size());
        for (int i = 0; i < tokens.size(); i++) {
            results.add(new AckAllView.Result(tokens.get(i), outcomes.get(i).name()));
        }
        return new AckAllView(results);
    }

    private OutcomeView settle(String token, Settlement how, @Nullable JsonNode body) {
        JsonBody request = JsonBody.of(body).allowOnly(List.of("reason"));
        String reason = request.requireString("reason", "why the message failed; the next attempt and the dead"
                + " queue show it");
        if (reason.isBlank() || reason.length() > MAX_REASON_LENGTH) {
            throw new ApiException(Problem.INVALID_ARGUMENT, "field 'reason' must hold 1 to " + MAX_REASON_LENGTH
                    + " characters, not only whitespace; it held " + reason.length());
        }
        return new OutcomeView(puller.settle(token, how, reason).name(), null, null);
    }
}
