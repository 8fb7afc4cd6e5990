package dev.rmq.benchmarks;

import dev.rmq.RmqClient;
import dev.rmq.codec.Compression;
import dev.rmq.codec.PayloadForm;
import dev.rmq.codec.PayloadKeyRing;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;

import java.security.SecureRandom;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import static dev.rmq.benchmarks.Report.Unit.BYTES;
import static dev.rmq.benchmarks.Report.Unit.MICROS;

/**
 * The payload section: JSON payloads of 1 KB and 10 KB sent plain, compressed, and compressed and encrypted; for each,
 * Redis's memory per waiting message, and the Redis and client CPU per message to send and to consume them.
 */
final class PayloadSection {

    private static final int SLOTS = 4;
    private static final ConsumerSettings CONSUME = ConsumerSettings.DEFAULTS.withConcurrency(2).withBatchSize(100);
    private static final AtomicLong SEQUENCE = new AtomicLong();

    private final Context context;
    private final RmqCases rmq;

    PayloadSection(Context context, RmqCases rmq) {
        this.context = context;
        this.rmq = rmq;
    }

    private record Form(String name, PayloadForm form) {
    }

    void run() {
        Report report = context.report();
        Samples samples = context.samples();
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        PayloadKeyRing ring = PayloadKeyRing.builder().key("bench", key).build();
        PayloadForm compressed = PayloadForm.PLAIN.withCompression(Compression.DEFLATE, 512);
        List<Form> forms = List.of(new Form("plain", PayloadForm.PLAIN), new Form("deflate", compressed),
                new Form("deflate+aes", compressed.withEncryption(true)));
        List<TopicDefinition> topics = forms.stream().map(form -> TopicDefinition.builder("payload-"
                + form.name().replace('+', '-'), TopicType.PRIORITY).slotAmount(SLOTS).payloadForm(form.form()).build())
                .toList();
        int reps = Math.max(context.reps(), 3);
        boolean full = context.plan().memory() >= 1_000_000;
        try (RmqClient client = RmqClient.builder(rmq.redisson()).topics(topics).keyRing(ring).build()) {
            for (int size : List.of(1024, 10240)) {
                long count = (full ? 2 : 1) * (size > 1024 ? 5_000 : 20_000);
                String section = String.format(Locale.ROOT, "Payloads of %d KB JSON (%,d messages, %d slots, %s)",
                        size / 1024, count, SLOTS, "2 threads, batch 100");
                // the JIT warms up on every form before any is measured; then the forms take turns
                for (int i = 0; i < forms.size(); i++) {
                    measure(client, topics.get(i), size, Math.min(count, 2_000));
                }
                for (int rep = 1; rep <= reps; rep++) {
                    for (int i = 0; i < forms.size(); i++) {
                        Log.info("payloads, %d B %s, repetition %d of %d", size, forms.get(i).name(), rep, reps);
                        String name = "payload." + size + "." + forms.get(i).name();
                        Round round = measure(client, topics.get(i), size, count);
                        samples.add(name + ".memory", round.memoryPerMessage());
                        samples.add(name + ".send", round.sent().cpuMicrosPerMessage());
                        samples.add(name + ".send.jvm", round.sent().jvmCpuMicrosPerMessage());
                        samples.add(name + ".consume", round.consumed().cpuMicrosPerMessage());
                        samples.add(name + ".consume.jvm", round.consumed().jvmCpuMicrosPerMessage());
                    }
                }
                for (Form form : forms) {
                    String name = "payload." + size + "." + form.name();
                    String path = "payload_" + size + "_" + form.name().replace('+', '_');
                    report.figure(path + "_memory_bytes", samples.figure(name + ".memory"), BYTES, section,
                            form.name() + ": Redis memory per waiting message", "");
                    report.figure(path + "_send_redis_us", samples.figure(name + ".send"), MICROS, section,
                            "  send: Redis CPU", "");
                    report.figure(path + "_send_client_us", samples.figure(name + ".send.jvm"), MICROS, section,
                            "  send: client CPU", "");
                    report.figure(path + "_consume_redis_us", samples.figure(name + ".consume"), MICROS, section,
                            "  consume: Redis CPU", "");
                    report.figure(path + "_consume_client_us", samples.figure(name + ".consume.jvm"), MICROS,
                            section, "  consume: client CPU", "");
                }
            }
        }
        context.probe().flushAll();
    }

    /** One form's send and consume, and Redis's memory per message while they waited. */
    private record Round(Measured sent, Measured consumed, double memoryPerMessage) {
    }

    /** Sends {@code count} orders of {@code size} bytes to an empty Redis, then consumes them. */
    private Round measure(RmqClient client, TopicDefinition topic, int size, long count) {
        RedisProbe probe = context.probe();
        probe.flushAll();
        long before = probe.usedMemory();
        Measured sent = rmq.produceBatched(client, count, 100, 4,
                i -> OutgoingMessage.priority(topic.name(), json(size), 100));
        double memory = (probe.usedMemory() - before) / (double) count;
        Measured consumed = rmq.consume(client, topic.name(), count, CONSUME);
        return new Round(sent, consumed, memory);
    }

    /** An order of about {@code size} bytes, unique, with the repetition real JSON has. */
    static String json(int size) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        StringBuilder text = new StringBuilder(size + 200).append("{\"orderId\":\"o-")
                .append(SEQUENCE.incrementAndGet()).append("\",\"customer\":\"c-").append(random.nextInt(1_000_000))
                .append("\",\"lines\":[");
        String[] names = {"Blue widget", "Red gadget", "Green sprocket", "Yellow flange"};
        for (int i = 0; text.length() < size - 2; i++) {
            text.append(i == 0 ? "" : ",").append("{\"sku\":\"SKU-").append(100_000 + random.nextInt(900_000))
                    .append("\",\"name\":\"").append(names[random.nextInt(names.length)]).append("\",\"quantity\":")
                    .append(1 + random.nextInt(20)).append(",\"priceCents\":").append(random.nextInt(100_000))
                    .append(",\"warehouse\":\"eu-west-").append(random.nextInt(3)).append("\"}");
        }
        return text.append("]}").toString();
    }
}
