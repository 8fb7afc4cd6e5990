package dev.rmq.spring.autoconfigure;

import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;
import org.springframework.boot.convert.DurationStyle;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The core's builders hold the only defaults: the properties leave what is not set to them. What the IDE's metadata
 * and the configuration page say of each default must be the core's.
 */
class ConfigurationDefaultsTests {

    private static final TopicDefinition TOPIC = TopicDefinition.builder("t", TopicType.FIXED_TIME).build();
    private static final List<Object> TOPIC_BACKOFF = List.of(TOPIC.backoff().initial(), TOPIC.backoff().multiplier(),
            TOPIC.backoff().max(), TOPIC.backoff().jitter());
    private static final ConsumerSettings LISTENER = ConsumerSettings.DEFAULTS;
    /** A row of a table on the configuration page: its key and its default. */
    private static final Pattern ROW = Pattern.compile("^\\| `([^`]+)`[^|]* \\| ([^|]+) \\|", Pattern.MULTILINE);

    /** Each topic key's default in the core, as the value the text must parse to. */
    private static Map<String, Object> topicDefaults() {
        Map<String, Object> defaults = new LinkedHashMap<>();
        defaults.put("slot-amount", TOPIC.slotAmount());
        defaults.put("lease-timeout", TOPIC.leaseTimeout());
        defaults.put("max-retries", TOPIC.maxRetries());
        defaults.put("backoff.initial", TOPIC.backoff().initial());
        defaults.put("backoff.multiplier", TOPIC.backoff().multiplier());
        defaults.put("backoff.max", TOPIC.backoff().max());
        defaults.put("backoff.jitter", TOPIC.backoff().jitter());
        defaults.put("dead-capacity", TOPIC.deadCapacity());
        defaults.put("ttl", TOPIC.ttl());
        defaults.put("expiry", TOPIC.expiry().name());
        defaults.put("max-backlog", TOPIC.maxBacklog());
        defaults.put("delivery", TOPIC.delivery().name());
        defaults.put("rate-limit", TOPIC.rateLimit());
        defaults.put("late-tolerance", TOPIC.lateTolerance());
        defaults.put("fifo", TOPIC.fifo());
        defaults.put("repeated-key", TOPIC.repeatedKey().kind().name());
        defaults.put("zone-routing", TOPIC.zones().routing().name());
        return defaults;
    }

    /** Each listener key's default in the core. */
    private static Map<String, Object> listenerDefaults() {
        Map<String, Object> defaults = new LinkedHashMap<>();
        defaults.put("rmq.listener.concurrency", LISTENER.concurrency());
        defaults.put("rmq.listener.batch-size", LISTENER.batchSize());
        defaults.put("rmq.listener.idle-poll", LISTENER.idlePoll());
        defaults.put("rmq.listener.shutdown-timeout", LISTENER.shutdownTimeout());
        defaults.put("rmq.listener.slot-order", LISTENER.slotOrder());
        return defaults;
    }

    @Test
    void theMetadataGivesTheCoresDefaults() throws IOException {
        Map<String, String> said = new LinkedHashMap<>();
        for (JsonNode property : metadata().get("properties")) {
            if (property.has("defaultValue")) {
                said.put(property.get("name").asString(), property.get("defaultValue").asString());
            }
        }
        topicDefaults().forEach((key, value) ->
                assertThat(parsed(said.get("rmq.topics.*." + key), value)).as("rmq.topics.*." + key).isEqualTo(value));
        listenerDefaults().forEach((key, value) ->
                assertThat(parsed(said.get(key), value)).as(key).isEqualTo(value));
        // a puller's defaults are a consumer's
        assertThat(parsed(said.get("rmq.puller.idle-poll"), LISTENER.idlePoll())).isEqualTo(LISTENER.idlePoll());
        assertThat(parsed(said.get("rmq.puller.close-timeout"), LISTENER.shutdownTimeout()))
                .isEqualTo(LISTENER.shutdownTimeout());
        assertThat(parsed(said.get("rmq.puller.slot-order"), LISTENER.slotOrder())).isEqualTo(LISTENER.slotOrder());
    }

    @Test
    void theConfigurationPageGivesTheCoresDefaults() throws IOException {
        Map<String, String> rows = new LinkedHashMap<>();
        Matcher row = ROW.matcher(Files.readString(Path.of("..", "docs", "configuration.md")));
        while (row.find()) {
            rows.put(row.group(1), row.group(2).trim());
        }
        List<String> backoff = List.of(rows.get("backoff.initial").split(",\\s*"));
        Map<String, Object> topic = topicDefaults();
        List<String> parts = List.of("initial", "multiplier", "max", "jitter");
        for (int i = 0; i < parts.size(); i++) {
            String key = "backoff." + parts.get(i);
            assertThat(parsed(backoff.get(i), topic.remove(key))).as(key).isEqualTo(TOPIC_BACKOFF.get(i));
        }
        topic.forEach((key, value) -> assertThat(parsed(rows.get(key), value)).as(key).isEqualTo(value));
        listenerDefaults().forEach((key, value) -> assertThat(parsed(rows.get(key), value)).as(key).isEqualTo(value));
    }

    /** What the text says, as a value of the expected one's type; "none" is a zero. */
    private static Object parsed(String text, Object like) {
        assertThat(text).as("a default for a value like " + like).isNotNull();
        String value = text.replace("`", "").trim();
        boolean none = value.equals("none");
        if (like instanceof Duration) {
            return none ? Duration.ZERO : DurationStyle.detectAndParse(value);
        }
        if (like instanceof Integer) {
            return none ? 0 : Integer.parseInt(value);
        }
        if (like instanceof Double) {
            return none ? 0.0 : Double.parseDouble(value);
        }
        if (like instanceof Boolean) {
            return Boolean.parseBoolean(value);
        }
        if (like instanceof Enum<?> constant) {
            // as Spring binds it: any case, dashes for underscores
            return Enum.valueOf(constant.getDeclaringClass(), value.toUpperCase(Locale.ROOT).replace('-', '_'));
        }
        return value;
    }

    /** The metadata the IDE reads: what the annotation processor made of the properties, and the hand-written part. */
    private JsonNode metadata() throws IOException {
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("the generated configuration metadata").isNotNull();
            return JsonMapper.builder().build().readTree(in);
        }
    }
}
