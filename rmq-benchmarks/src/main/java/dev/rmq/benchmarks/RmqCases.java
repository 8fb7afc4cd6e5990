package dev.rmq.benchmarks;

import dev.rmq.ContainerBuilder;
import dev.rmq.RmqClient;
import dev.rmq.consumer.BatchResult;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.pull.PulledMessage;
import dev.rmq.pull.RmqPuller;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.LongFunction;

/** rmq's cases: produce (batched and single), consume through the real container, and lateness. */
final class RmqCases {

    /** A topic's messages: one per index, each with a unique payload. */
    interface Messages extends LongFunction<OutgoingMessage> {
    }

    /**
     * The shortest delay of a lateness message: its fixed time must still be ahead when the send reaches Redis (one
     * already past is delivered at once and counted late, which would not measure the poll), and a loaded 2-core
     * machine cannot promise that for much less.
     */
    static final long MIN_DELAY_MS = 100;

    private final RedissonClient redisson;
    private final RedisProbe probe;

    RmqCases(RedissonClient redisson, RedisProbe probe) {
        this.redisson = redisson;
        this.probe = probe;
    }

    /** The benchmark's Redisson client. */
    RedissonClient redisson() {
        return redisson;
    }

    RmqClient client(TopicDefinition... topics) {
        return RmqClient.builder(redisson).topics(List.of(topics)).build();
    }

    static TopicDefinition topic(String name, TopicType type, int slots) {
        return TopicDefinition.builder(name, type).slotAmount(slots).build();
    }

    /** Unique messages of the topic's type, due in an hour (or at a random priority), so nothing is consumed. */
    static Messages waiting(TopicDefinition topic) {
        long inAnHour = System.currentTimeMillis() + 3_600_000;
        return switch (topic.type()) {
            case RANGE_MERGE -> i -> OutgoingMessage.rangeMerge(topic.name(), Payloads.next(), Duration.ofHours(1));
            case PRIORITY -> i -> OutgoingMessage.priority(topic.name(), Payloads.next(),
                    17 + ThreadLocalRandom.current().nextInt(1_000_000));
            case FIXED_TIME -> i -> OutgoingMessage.fixedTime(topic.name(), Payloads.next(),
                    Instant.ofEpochMilli(inAnHour + (i % 600_000)));
        };
    }

    /** Unique range-merge messages due 1 ms after they arrive: a backlog ready to consume. */
    static Messages dueNow(String topic) {
        Duration range = Duration.ofMillis(1);
        return i -> OutgoingMessage.rangeMerge(topic, Payloads.next(), range);
    }

    /**
     * Sends {@code count} messages with {@code sendAllAsync}, {@code batch} per call and at most
     * {@code inFlight} calls outstanding.
     */
    Measured produceBatched(RmqClient rmq, long count, int batch, int inFlight, Messages messages) {
        return ProduceLoop.run(probe, count, batch, inFlight, "a send failed", (first, n) -> {
            List<OutgoingMessage> list = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                list.add(messages.apply(first + i));
            }
            return () -> rmq.producer().sendAllAsync(list);
        });
    }

    /** Sends {@code count} messages one {@code sendAsync} each, with at most {@code inFlight} outstanding. */
    Measured produceSingle(RmqClient rmq, long count, int inFlight, Messages messages) {
        return ProduceLoop.run(probe, count, 1, inFlight, "a send failed", (first, n) -> {
            OutgoingMessage message = messages.apply(first);
            return () -> rmq.producer().sendAsync(message);
        });
    }

    /** Fills a topic as fast as the producer goes, not measured. */
    void fill(RmqClient rmq, long count, Messages messages) {
        produceBatched(rmq, count, 4096, 4, messages);
    }

    /**
     * Fills a topic with {@code count} messages due at once, then waits the few ms until the last of them is
     * due, so that a consumer started next finds all of them ready.
     */
    void fillDue(RmqClient rmq, String topic, long count) {
        fill(rmq, count, dueNow(topic));
        Waits.sleep(5);
    }

    /**
     * The pull consumer's rate over the same preloaded messages: one thread that polls up to 1000 at a time (waiting
     * up to 1 s) and acknowledges each poll's messages in one call per slot, as a batch job would.
     */
    Measured pull(RmqClient rmq, String topic, long count) {
        CallTimer timer = new CallTimer(count);
        RedisProbe.Snapshot before = probe.snapshot();
        RedisProbe.Snapshot after;
        try (RmqPuller<byte[]> puller = rmq.puller(byte[].class).topics(topic).build()) {
            puller.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Math.max(120, count / 10_000));
            while (timer.calls() < count) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("pulled only " + timer.calls() + " of " + count + " messages of " + topic);
                }
                List<PulledMessage<byte[]>> got = puller.poll(1000, Duration.ofSeconds(1));
                for (int i = 0; i < got.size(); i++) {
                    timer.call();
                }
                puller.ackAll(got);
            }
            after = probe.snapshot();
        }
        return timer.measured(after.since(before));
    }

    /**
     * How long after a send a puller waiting in a long poll returns with the message, in ms, {@code count} times: the
     * wake-up goes through the topic's wake channel, with an idle poll of a minute so that only it can end the wait.
     */
    List<Double> pullWakeMillis(RmqClient rmq, String topic, int count) throws InterruptedException {
        List<Double> millis = new ArrayList<>(count);
        try (RmqPuller<byte[]> puller = rmq.puller(byte[].class).topics(topic).idlePoll(Duration.ofMinutes(1)).build()) {
            puller.start();
            puller.ackAll(puller.poll(1000, Duration.ZERO));
            for (int i = 0; i < count; i++) {
                AtomicReference<List<PulledMessage<byte[]>>> got = new AtomicReference<>();
                Thread waiter = new Thread(() -> got.set(puller.poll(1, Duration.ofSeconds(10))), "bench-long-poll");
                waiter.start();
                // the waiter is in its poll, past its first look at the slots, well within this
                TimeUnit.MILLISECONDS.sleep(20);
                long sent = System.nanoTime();
                rmq.producer().send(OutgoingMessage.rangeMerge(topic, Payloads.next(), Duration.ofMillis(1)));
                waiter.join();
                millis.add((System.nanoTime() - sent) / 1e6);
                List<PulledMessage<byte[]>> pulled = got.get();
                if (pulled == null) {
                    // the poll threw in the waiter, whose stack trace is printed above
                    throw new IllegalStateException("the long poll failed");
                }
                puller.ackAll(pulled);
            }
        }
        return millis;
    }

    /**
     * Consumes {@code count} waiting messages with a no-op handler through a real container, and stops it.
     * The time runs from the first handler call to the {@code count}-th, so container start-up is left out.
     */
    Measured consume(RmqClient rmq, String topic, long count, ConsumerSettings settings) {
        return consume(rmq, topic, count, settings, (container, timer) -> container.handler(message -> {
            timer.call();
            return ConsumeResult.success();
        }));
    }

    /** Consumes with a batch handler that takes up to {@code batch} messages a call. */
    Measured consumeBatches(RmqClient rmq, String topic, long count, ConsumerSettings settings, int batch) {
        return consume(rmq, topic, count, settings.withBatchSize(batch), (container, timer) ->
                container.batchHandler(messages -> {
                    timer.calls(messages.size());
                    return BatchResult.success();
                }));
    }

    /** Consumes with an asynchronous handler whose result another thread completes. */
    Measured consumeAsync(RmqClient rmq, String topic, long count, ConsumerSettings settings) {
        ExecutorService completer = Executors.newSingleThreadExecutor(runnable -> new Thread(runnable, "bench-async"));
        try {
            return consume(rmq, topic, count, settings, (container, timer) -> container.asyncHandler(message ->
                    CompletableFuture.supplyAsync(() -> {
                        timer.call();
                        return ConsumeResult.success();
                    }, completer)));
        } finally {
            completer.shutdownNow();
        }
    }

    private Measured consume(RmqClient rmq, String topic, long count, ConsumerSettings settings,
                             BiConsumer<ContainerBuilder<byte[]>, CallTimer> handler) {
        CallTimer timer = new CallTimer(count);
        ContainerBuilder<byte[]> builder = rmq.container(topic, byte[].class);
        handler.accept(builder, timer);
        RmqConsumerContainer<byte[]> container = builder.settings(settings.withShutdownTimeout(Duration.ofSeconds(10)))
                .build();
        RedisProbe.Snapshot before = probe.snapshot();
        container.start();
        RedisProbe.Snapshot after;
        try {
            if (!timer.await(Math.max(120, count / 10_000))) {
                throw new IllegalStateException("consumed only " + timer.calls() + " of " + count + " messages of " + topic);
            }
            // before the stop, which releases what was polled beyond the count: that is not consuming
            after = probe.snapshot();
        } finally {
            container.stop();
        }
        return timer.measured(after.since(before));
    }

    /** Messages waiting in the topic's store sets. */
    long backlog(RmqClient rmq, String topic) {
        return rmq.inspector().totals(topic).backlog();
    }

    /**
     * Sends fixed-time messages at a steady {@code rate} for {@code produceFor} (one sendAllAsync of
     * {@code rate / 1000} messages every millisecond), each due a random {@link #MIN_DELAY_MS} ..
     * {@code spread} after it is sent, while a container consumes them; records lateness by the Redis clock.
     */
    Lateness lateness(RmqClient rmq, String topic, int rate, Duration produceFor, Duration spread,
                      ConsumerSettings settings) {
        int total = (int) (rate * produceFor.toMillis() / 1000);
        long offsetMicros = clockOffsetMicros();
        long leaseMicros = rmq.topics().require(topic).leaseTimeout().toNanos() / 1000;
        long[] lateMicros = new long[total];
        AtomicInteger consumed = new AtomicInteger();
        AtomicInteger early = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(1);
        RmqConsumerContainer<byte[]> container = rmq.container(topic, byte[].class, message -> {
            long nowMicros = Clocks.micros() + offsetMicros;
            long dueMicros = message.dueTime().orElseThrow().toEpochMilli() * 1000;
            Instant lease = message.leaseDeadline();
            long polledMicros = lease.getEpochSecond() * 1_000_000 + lease.getNano() / 1000 - leaseMicros;
            if (polledMicros < dueMicros) {
                early.incrementAndGet();
            }
            int at = consumed.getAndIncrement();
            if (at < total) {
                lateMicros[at] = nowMicros - dueMicros;
            }
            if (at + 1 == total) {
                done.countDown();
            }
            return ConsumeResult.success();
        }).settings(settings).build();
        RedisProbe.Snapshot before = probe.snapshot();
        container.start();
        AtomicInteger sendErrors = new AtomicInteger();
        AtomicReference<Throwable> firstError = new AtomicReference<>();
        try {
            long spreadMs = spread.toMillis();
            long periodNanos = 1_000_000;
            int perTick = rate / 1000;
            long start = System.nanoTime();
            int sent = 0;
            for (long tick = 0; sent < total; tick++) {
                long at = start + tick * periodNanos;
                long wait = at - System.nanoTime();
                if (wait > 0) {
                    java.util.concurrent.locks.LockSupport.parkNanos(wait);
                }
                List<OutgoingMessage> tickMessages = new ArrayList<>(perTick);
                for (int i = 0; i < perTick && sent < total; i++, sent++) {
                    long due = System.currentTimeMillis() + MIN_DELAY_MS
                            + ThreadLocalRandom.current().nextLong(spreadMs - MIN_DELAY_MS);
                    tickMessages.add(OutgoingMessage.fixedTime(topic, Payloads.next(), Instant.ofEpochMilli(due)));
                }
                int n = tickMessages.size();
                rmq.producer().sendAllAsync(tickMessages).whenComplete((r, e) -> {
                    if (e != null) {
                        sendErrors.addAndGet(n);
                        firstError.compareAndSet(null, e);
                    }
                });
            }
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(spreadMs + 30_000);
            while (consumed.get() + sendErrors.get() < total && System.nanoTime() - deadline < 0) {
                Waits.await(done, 20, TimeUnit.MILLISECONDS);
            }
        } finally {
            container.stop();
        }
        double[] millis = Lateness.sortedMillis(lateMicros, Math.min(consumed.get(), total));
        return new Lateness(millis, early.get(), total, consumed.get(), sendErrors.get(), offsetMicros / 1000.0,
                firstError.get() == null ? null : firstError.get().toString(), probe.snapshot().since(before));
    }

    /** Redis clock minus the local clock, from the best of a few TIME calls. */
    long clockOffsetMicros() {
        long best = Long.MAX_VALUE;
        long offset = 0;
        for (int i = 0; i < 7; i++) {
            long t0 = Clocks.micros();
            long redis = probe.timeMicros();
            long t1 = Clocks.micros();
            if (t1 - t0 < best) {
                best = t1 - t0;
                offset = redis - (t0 + t1) / 2;
            }
        }
        return offset;
    }
}
