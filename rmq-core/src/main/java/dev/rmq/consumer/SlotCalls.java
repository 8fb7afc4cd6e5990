package dev.rmq.consumer;

import dev.rmq.RmqContext;
import dev.rmq.redis.Futures;
import dev.rmq.redis.Script;
import dev.rmq.redis.SlotKeys;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.TopicDefinition;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The consumer's script calls on one slot: poll (prepare), acknowledge, extend leases. */
final class SlotCalls {

    /** One acknowledgement: op is C (commit), R (roll back), D (dead now) or U (release unstarted). */
    record Ack(char op, String key, long token, String error) {
    }

    /** A poll's reply: the lease token, how long until more is due, leases recovered, and the messages. */
    record Polled(long token, long waitMs, long recovered, List<String> keys, List<byte[]> envelopes,
                  long redisNowMs, long receivedNanos) {
    }

    private final RmqContext context;
    private final TopicDefinition topic;
    private final ConsumerSettings settings;
    private final Object[] policy;

    SlotCalls(RmqContext context, TopicDefinition topic, ConsumerSettings settings) {
        this.context = context;
        this.topic = topic;
        this.settings = settings;
        BackoffPolicy backoff = topic.backoff();
        this.policy = new Object[] {topic.type().scriptCode(), topic.maxRetries(), backoff.initial().toMillis(),
                backoff.multiplier(), backoff.max().toMillis(), backoff.jitter(), topic.deadCapacity()};
    }

    Polled poll(SlotKeys keys, String fence) {
        Object[] args = with(policy, settings.batchSize(), topic.leaseTimeout().toMillis(), fence,
                settings.idlePoll().toMillis(), settings.recoverLimit());
        List<Object> reply = Futures.joinBounded(context.scripts().list(Script.PREPARE, keys, args));
        int count = (reply.size() - 3) / 2;
        List<String> messageKeys = new ArrayList<>(count);
        List<byte[]> envelopes = new ArrayList<>(count);
        for (int i = 3; i + 1 < reply.size(); i += 2) {
            messageKeys.add(new String((byte[]) reply.get(i), StandardCharsets.UTF_8));
            envelopes.add((byte[]) reply.get(i + 1));
        }
        long token = (Long) reply.get(0);
        long redisNowMs = token / 1000 - topic.leaseTimeout().toMillis();
        return new Polled(token, (Long) reply.get(1), (Long) reply.get(2), messageKeys, envelopes, redisNowMs,
                System.nanoTime());
    }

    /** Returns each ack's result: committed, retry, dead, merged, released or stale. */
    List<String> ack(SlotKeys keys, String fence, List<Ack> acks) {
        List<Object> args = new ArrayList<>(List.of(policy));
        args.add(fence);
        args.add(acks.size());
        for (Ack ack : acks) {
            args.add(String.valueOf(ack.op()));
            args.add(ack.key());
            args.add(ack.token());
            args.add(ack.error());
        }
        List<Object> reply = Futures.joinBounded(context.scripts().list(Script.ACK, keys, args.toArray()));
        List<String> results = new ArrayList<>(reply.size());
        for (Object r : reply) {
            results.add(new String((byte[]) r, StandardCharsets.UTF_8));
        }
        return results;
    }

    /** Returns each delivery's new token, or 0 where its lease was already lost. */
    List<Long> extend(SlotKeys keys, String fence, Duration lease, List<String> messageKeys, List<Long> tokens) {
        List<Object> args = new ArrayList<>();
        args.add(Math.max(1, lease.toMillis()));
        args.add(fence);
        args.add(messageKeys.size());
        for (int i = 0; i < messageKeys.size(); i++) {
            args.add(messageKeys.get(i));
            args.add(tokens.get(i));
        }
        List<Object> reply = Futures.joinBounded(context.scripts().list(Script.EXTEND, keys, args.toArray()));
        List<Long> result = new ArrayList<>(reply.size());
        for (Object r : reply) {
            result.add((Long) r);
        }
        return result;
    }

    private static Object[] with(Object[] head, Object... tail) {
        Object[] all = new Object[head.length + tail.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(tail, 0, all, head.length, tail.length);
        return all;
    }
}
