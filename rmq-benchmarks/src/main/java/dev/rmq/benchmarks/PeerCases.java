package dev.rmq.benchmarks;

import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RBlockingQueue;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RStream;
import org.redisson.api.RStreamAsync;
import org.redisson.api.RedissonClient;
import org.redisson.api.stream.StreamAddArgs;
import org.redisson.api.stream.StreamCreateGroupArgs;
import org.redisson.api.stream.StreamMessageId;
import org.redisson.api.stream.StreamReadGroupArgs;
import org.redisson.client.codec.ByteArrayCodec;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * The peers, on the same Redis and the same Redisson client: a Redisson {@code RStream} with a consumer
 * group (batched XREADGROUP and XACK, its free at-least-once option) and {@code RDelayedQueue} (the
 * open-source delayed queue of Redisson 4.x; its successor {@code RReliableQueue} is Redisson PRO only).
 */
final class PeerCases {

    static final String GROUP = "bench";
    /** Offers that share a due time in the RDelayedQueue consume case. */
    static final int DUE_TIES = 500;
    private static final byte[] FIELD = "p".getBytes(StandardCharsets.US_ASCII);

    private final RedissonClient redisson;
    private final RedisProbe probe;

    PeerCases(RedissonClient redisson, RedisProbe probe) {
        this.redisson = redisson;
        this.probe = probe;
    }

    /** XADDs {@code count} unique payloads, {@code batch} per pipelined RBatch, {@code inFlight} batches outstanding. */
    Measured streamProduce(String stream, long count, int batch, int inFlight) {
        return ProduceLoop.run(probe, count, batch, inFlight, "an XADD batch failed", (first, n) -> {
            RBatch rbatch = redisson.createBatch(BatchOptions.defaults());
            RStreamAsync<byte[], byte[]> s = rbatch.getStream(stream, ByteArrayCodec.INSTANCE);
            for (int i = 0; i < n; i++) {
                s.addAsync(StreamAddArgs.entry(FIELD, Payloads.next()));
            }
            return rbatch::executeAsync;
        });
    }

    void streamGroup(String stream) {
        RStream<byte[], byte[]> s = redisson.getStream(stream, ByteArrayCodec.INSTANCE);
        s.createGroup(StreamCreateGroupArgs.name(GROUP).id(StreamMessageId.ALL).makeStream());
    }

    /**
     * {@code threads} consumers of one group each read up to {@code count} new entries (XREADGROUP), run
     * the same no-op handler on each, and acknowledge the batch (XACK), until {@code total} are consumed.
     * Timed from the first entry read to the last acknowledged.
     */
    Measured streamConsume(String stream, long total, int threads, int count) {
        RStream<byte[], byte[]> s = redisson.getStream(stream, ByteArrayCodec.INSTANCE);
        AtomicLong consumed = new AtomicLong();
        AtomicLong firstNanos = new AtomicLong();
        AtomicLong lastNanos = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong sink = new AtomicLong();
        CountDownLatch finished = new CountDownLatch(threads);
        RedisProbe.Snapshot before = probe.snapshot();
        for (int t = 0; t < threads; t++) {
            String consumer = "c" + t;
            Thread thread = new Thread(() -> {
                try {
                    while (consumed.get() < total && failure.get() == null) {
                        Map<StreamMessageId, Map<byte[], byte[]>> entries = s.readGroup(GROUP, consumer,
                                StreamReadGroupArgs.neverDelivered().count(count));
                        if (entries.isEmpty()) {
                            continue;
                        }
                        firstNanos.compareAndSet(0, System.nanoTime());
                        StreamMessageId[] ids = new StreamMessageId[entries.size()];
                        int i = 0;
                        for (Map.Entry<StreamMessageId, Map<byte[], byte[]>> entry : entries.entrySet()) {
                            byte[] payload = entry.getValue().get(FIELD);
                            sink.addAndGet(payload == null ? 0 : payload.length);
                            ids[i++] = entry.getKey();
                        }
                        s.ack(GROUP, ids);
                        if (consumed.addAndGet(ids.length) >= total) {
                            lastNanos.compareAndSet(0, System.nanoTime());
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                } finally {
                    finished.countDown();
                }
            }, "stream-consumer-" + t);
            thread.start();
        }
        if (!Waits.await(finished, Math.max(120, total / 10_000), TimeUnit.SECONDS)) {
            failure.compareAndSet(null, new IllegalStateException("stream consumers did not finish"));
        }
        if (failure.get() != null) {
            throw new IllegalStateException("stream consumer failed", failure.get());
        }
        RedisProbe.Cost cost = probe.snapshot().since(before);
        return new Measured(consumed.get(), (lastNanos.get() - firstNanos.get()) / 1e9, cost);
    }

    /** Offers {@code count} unique payloads to an RDelayedQueue, an hour ahead, {@code inFlight} outstanding. */
    Measured delayedProduce(String queue, long count, int inFlight) {
        RBlockingQueue<byte[]> destination = redisson.getBlockingQueue(queue, ByteArrayCodec.INSTANCE);
        @SuppressWarnings("deprecation")
        RDelayedQueue<byte[]> delayed = redisson.getDelayedQueue(destination);
        try {
            return ProduceLoop.run(probe, count, 1, inFlight, "an RDelayedQueue offer failed",
                    (first, n) -> () -> delayed.offerAsync(Payloads.next(), 3_600_000, TimeUnit.MILLISECONDS));
        } finally {
            delayed.destroy();
        }
    }

    /**
     * The lateness case for RDelayedQueue: offers at a steady {@code rate}, each delayed a random
     * 100 ms .. {@code spreadMs}; {@code threads} consumers each block on the destination (BLPOP) and then
     * drain up to {@code drain} more without blocking. Lateness is consume time minus due time, both by the
     * local clock, which is the clock RDelayedQueue schedules by.
     */
    Lateness delayedLateness(String queue, int rate, long produceForMs, long spreadMs, int threads, int drain) {
        RBlockingQueue<byte[]> destination = redisson.getBlockingQueue(queue, ByteArrayCodec.INSTANCE);
        @SuppressWarnings("deprecation")
        RDelayedQueue<byte[]> delayed = redisson.getDelayedQueue(destination);
        int total = (int) (rate * produceForMs / 1000);
        long[] lateMicros = new long[total];
        AtomicInteger consumed = new AtomicInteger();
        AtomicInteger early = new AtomicInteger();
        AtomicInteger sendErrors = new AtomicInteger();
        RedisProbe.Snapshot before = probe.snapshot();
        AtomicBoolean running = new AtomicBoolean(true);
        List<Thread> consumers = startConsumers(destination, threads, drain, running,
                payload -> record(payload, lateMicros, consumed, early, total));
        try {
            long start = System.nanoTime();
            int sent = 0;
            int perTick = rate / 1000;
            for (long tick = 0; sent < total; tick++) {
                long wait = start + tick * 1_000_000 - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                for (int i = 0; i < perTick && sent < total; i++, sent++) {
                    long delay = RmqCases.MIN_DELAY_MS + ThreadLocalRandom.current().nextLong(spreadMs - RmqCases.MIN_DELAY_MS);
                    long due = System.currentTimeMillis() + delay;
                    delayed.offerAsync(Payloads.carrying(due), delay, TimeUnit.MILLISECONDS).whenComplete((r, e) -> {
                        if (e != null) {
                            sendErrors.incrementAndGet();
                        }
                    });
                }
            }
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(spreadMs + 30_000);
            while (consumed.get() + sendErrors.get() < total && System.nanoTime() - deadline < 0) {
                LockSupport.parkNanos(20_000_000);
            }
        } finally {
            stopConsumers(consumers, running);
            delayed.destroy();
        }
        double[] millis = Lateness.sortedMillis(lateMicros, Math.min(consumed.get(), total));
        return new Lateness(millis, early.get(), total, consumed.get(), sendErrors.get(), 0, null,
                probe.snapshot().since(before));
    }

    /**
     * The consume side of RDelayedQueue: {@code count} offers due from {@code offerMillis} from now (long
     * enough to offer them all, {@code inFlight} outstanding), then {@code threads} consumers take them as
     * Redisson's transfer task moves them to the destination list (100 per script call). Timed from the
     * first message taken to the last; Redis CPU from the last offer to the last message.
     *
     * <p>The due times rise 1 ms per {@link #DUE_TIES} offers, in offer order, as distinct due times do:
     * with one due time for all, the sorted set orders them by their random ids, and the transfer script's
     * LREM on Redisson's internal list, which it scans from the head, costs O(n) per message.
     */
    Measured delayedConsume(String queue, int count, int inFlight, long offerMillis, int threads, int drain) {
        RBlockingQueue<byte[]> destination = redisson.getBlockingQueue(queue, ByteArrayCodec.INSTANCE);
        @SuppressWarnings("deprecation")
        RDelayedQueue<byte[]> delayed = redisson.getDelayedQueue(destination);
        CallTimer timer = new CallTimer(count);
        AtomicBoolean running = new AtomicBoolean(true);
        List<Thread> consumers = startConsumers(destination, threads, drain, running, payload -> timer.call());
        try {
            long dueAt = System.currentTimeMillis() + offerMillis;
            InFlight window = new InFlight(inFlight);
            for (int i = 0; i < count && !window.failed(); i++) {
                int index = i;
                window.submit(() -> {
                    long delay = Math.max(0, dueAt + index / DUE_TIES - System.currentTimeMillis());
                    return delayed.offerAsync(Payloads.next(), delay, TimeUnit.MILLISECONDS);
                });
            }
            window.awaitAll();
            window.rethrow("an RDelayedQueue offer failed");
            if (System.currentTimeMillis() > dueAt) {
                Log.info("  (the offers outlasted their due time by %d ms: the drain overlapped them)",
                        System.currentTimeMillis() - dueAt);
            }
            RedisProbe.Snapshot before = probe.snapshot();
            if (!timer.await(Math.max(120, count / 5_000))) {
                throw new IllegalStateException("RDelayedQueue delivered only " + timer.calls() + " of " + count);
            }
            return timer.measured(probe.snapshot().since(before));
        } finally {
            stopConsumers(consumers, running);
            delayed.destroy();
        }
    }

    /**
     * {@code threads} consumers of the destination list: each blocks for one element (BLPOP with a timeout)
     * and then drains up to {@code drain} more without blocking (LPOP with a count).
     */
    private static List<Thread> startConsumers(RBlockingQueue<byte[]> destination, int threads, int drain,
                                               AtomicBoolean running, Consumer<byte[]> handler) {
        List<Thread> consumers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(() -> {
                while (running.get()) {
                    try {
                        byte[] first = destination.poll(200, TimeUnit.MILLISECONDS);
                        if (first == null) {
                            continue;
                        }
                        handler.accept(first);
                        if (drain > 0) {
                            for (byte[] more : destination.poll(drain)) {
                                handler.accept(more);
                            }
                        }
                    } catch (InterruptedException e) {
                        return;
                    } catch (RuntimeException e) {
                        if (running.get()) {
                            LockSupport.parkNanos(1_000_000);
                        }
                    }
                }
            }, "delayed-consumer-" + t);
            thread.start();
            consumers.add(thread);
        }
        return consumers;
    }

    private static void stopConsumers(List<Thread> consumers, AtomicBoolean running) {
        running.set(false);
        for (Thread thread : consumers) {
            try {
                thread.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void record(byte[] payload, long[] lateMicros, AtomicInteger consumed, AtomicInteger early, int total) {
        long nowMicros = Clocks.micros();
        long dueMicros = Payloads.carried(payload) * 1000;
        if (nowMicros < dueMicros) {
            early.incrementAndGet();
        }
        int at = consumed.getAndIncrement();
        if (at < total) {
            lateMicros[at] = nowMicros - dueMicros;
        }
    }
}
