package dev.rmq.internal.script;

import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.ExpiryAction;
import dev.rmq.topic.TopicDefinition;

/**
 * A topic's retry policy as the scripts that end deliveries receive it: the {@code policy{}} group of their
 * ARGV, declared in lib.lua. Built once per topic.
 *
 * @param type         the topic type's script code
 * @param maxRetries   retries after the first attempt
 * @param initialMs    backoff after the first failure
 * @param multiplier   backoff growth per attempt
 * @param maxMs        backoff cap
 * @param jitter       the fraction by which a backoff is shortened at random
 * @param deadCapacity dead messages kept per slot (0 keeps all)
 * @param maxReleases  releases a message may have before a further one sends it dead (0: no cap)
 * @param expiry       what becomes of a message whose time to live ran out: {@code drop} or {@code dead}
 */
public record RetryPolicy(String type, int maxRetries, long initialMs, double multiplier, long maxMs, double jitter,
                          int deadCapacity, int maxReleases, String expiry) {

    static final Argv<RetryPolicy> ARGV = Argv.<RetryPolicy>builder()
            .arg("type", RetryPolicy::type)
            .arg("max_retries", RetryPolicy::maxRetries)
            .arg("initial_ms", RetryPolicy::initialMs)
            .arg("multiplier", RetryPolicy::multiplier)
            .arg("max_ms", RetryPolicy::maxMs)
            .arg("jitter", RetryPolicy::jitter)
            .arg("dead_capacity", RetryPolicy::deadCapacity)
            .arg("max_releases", RetryPolicy::maxReleases)
            .arg("expiry", RetryPolicy::expiry)
            .build();

    public static RetryPolicy of(TopicDefinition topic) {
        BackoffPolicy backoff = topic.backoff();
        return new RetryPolicy(topic.type().scriptCode(), topic.maxRetries(), backoff.initial().toMillis(),
                backoff.multiplier(), backoff.max().toMillis(), backoff.jitter(), topic.deadCapacity(),
                topic.maxReleases(), topic.expiry() == ExpiryAction.DEAD ? "dead" : "drop");
    }
}
