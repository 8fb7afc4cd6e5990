package dev.rmq.spring.autoconfigure;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.rmq.RmqClient;
import dev.rmq.codec.Compression;
import dev.rmq.codec.PayloadForm;
import dev.rmq.codec.PayloadKeyRing;
import dev.rmq.codec.PayloadUpcaster;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.RmqProducer;
import dev.rmq.spring.RedisAndZooKeeper;
import dev.rmq.spring.actuate.RmqEndpoint;
import dev.rmq.spring.actuate.RmqEndpointViews;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.context.properties.ConfigurationPropertiesReportEndpoint;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.env.EnvironmentEndpoint;
import tools.jackson.databind.json.JsonMapper;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Base64;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Payload forms from {@code rmq.topics.*.payload}, keys from {@code rmq.payload}, and upcasters as beans. */
@ExtendWith(RedisAndZooKeeper.class)
class RmqPayloadPropertiesTests {

    private static final String KEY_1 = Base64.getEncoder().encodeToString(new byte[32]);
    private static final String KEY_2 = Base64.getEncoder().encodeToString("0123456789abcdef".getBytes());

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RmqRedisAutoConfiguration.class, RmqZooKeeperAutoConfiguration.class,
                    RmqAutoConfiguration.class, EndpointAutoConfiguration.class, RmqEndpointAutoConfiguration.class))
            .withPropertyValues("rmq.redis.address=" + RedisAndZooKeeper.redis().address(),
                    "rmq.topics.invoices.type=PRIORITY", "rmq.topics.invoices.slot-amount=1",
                    "rmq.topics.invoices.payload.version=2", "rmq.topics.invoices.payload.compress-above=1KB",
                    "rmq.topics.invoices.payload.encrypted=true", "rmq.payload.keys.k1=" + KEY_1,
                    "rmq.payload.keys.k2=" + KEY_2, "rmq.payload.current-key=k2",
                    "management.endpoints.web.exposure.include=rmq");

    @Test
    void bindsATopicsFormAndTheKeysAndReportsThemByIdAlone() {
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        Logger client = (Logger) LoggerFactory.getLogger(RmqClient.class);
        client.addAppender(logs);
        try {
            contextRunner.withBean(PayloadUpcaster.class, () -> PayloadUpcaster.of("invoices", 1, node -> node))
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertThat(context.getBean(RmqClient.class).topics().require("invoices").payloadForm())
                                .isEqualTo(new PayloadForm(2, Compression.DEFLATE, 1024, true));
                        assertThat(context.getBean(RmqProperties.class).payload().toString())
                                .isEqualTo("RmqPayloadProperties[ids=[k1, k2], currentKey=k2]");
                    });
        } finally {
            client.detachAppender(logs);
        }
        assertThat(logs.list).extracting(ILoggingEvent::getFormattedMessage)
                .contains("rmq topic invoices: payloads v2, deflate >= 1024 B, encrypted with key 'k2' of [k1, k2];"
                        + " upcasters from versions [1]")
                .noneMatch(line -> line.contains(KEY_1) || line.contains(KEY_2));
    }

    @Test
    void theEndpointShowsAnEncryptedPayloadAsEncryptedAndTheTopicsForm() {
        contextRunner.run(context -> {
            context.getBean(RmqProducer.class).send(OutgoingMessage.priority("invoices", "{\"iban\":\"DE89\"}", 50)
                    .withKey("inv-1"));
            RmqEndpoint endpoint = context.getBean(RmqEndpoint.class);
            RmqEndpointViews.MessageEntry entry = endpoint.topic("invoices", "waiting", null, null, null, null)
                    .messages().entries().get(0);
            assertThat(entry.payload()).isEqualTo("(encrypted)");
            assertThat(entry.headers()).containsEntry(PayloadForm.KEY_HEADER, "k2")
                    .containsEntry(PayloadForm.VERSION_HEADER, "2");
            assertThat(context.getBean(RmqClient.class).inspector().find(MessageRef.of("invoices", "inv-1"))
                    .orElseThrow().encrypted()).isTrue();
        });
    }

    @Test
    void aKeyRingBeanWinsOverTheConfiguredKeys() {
        PayloadKeyRing own = PayloadKeyRing.builder().key("vault-1", new byte[16]).build();
        contextRunner.withBean(PayloadKeyRing.class, () -> own).run(context -> {
            context.getBean(RmqProducer.class).send(OutgoingMessage.priority("invoices", "x", 50).withKey("a"));
            assertThat(context.getBean(RmqClient.class).inspector().find(MessageRef.of("invoices", "a")).orElseThrow()
                    .headers()).containsEntry(PayloadForm.KEY_HEADER, "vault-1");
        });
    }

    @Test
    void theKeysNeverShowInTheActuatorNorInAFailedStart() {
        contextRunner.withConfiguration(AutoConfigurations.of(RmqSanitizingAutoConfiguration.class)).run(context -> {
            List<SanitizingFunction> sanitizers = context.getBeanProvider(SanitizingFunction.class).orderedStream()
                    .toList();
            ConfigurationPropertiesReportEndpoint configprops = new ConfigurationPropertiesReportEndpoint(sanitizers,
                    Show.ALWAYS);
            configprops.setApplicationContext(context);
            String shown = JsonMapper.builder().build().writeValueAsString(
                    configprops.configurationPropertiesWithPrefix("rmq"));
            EnvironmentEndpoint env = new EnvironmentEndpoint(context.getEnvironment(), sanitizers, Show.ALWAYS);
            shown += JsonMapper.builder().build().writeValueAsString(env.environmentEntry("rmq.payload.keys.k1"));
            assertThat(shown).contains("******").contains("currentKey").doesNotContain(KEY_1).doesNotContain(KEY_2);
        });
        contextRunner.withPropertyValues("rmq.payload.keys.k1=c2hvcnQ=").run(context -> {
            assertThat(context).hasFailed();
            StringWriter trace = new StringWriter();
            context.getStartupFailure().printStackTrace(new PrintWriter(trace));
            assertThat(trace.toString()).contains("key 'k1' must be an AES key").doesNotContain("c2hvcnQ=");
        });
    }

    @Test
    void aBadKeyOrFormStopsStartUpNamingTheIdAndNeverTheKey() {
        contextRunner.withPropertyValues("rmq.payload.keys.k1=c2hvcnQ=").run(context ->
                assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessage("key 'k1' must be an AES key of 16, 24 or 32 bytes, was 5 bytes"));
        contextRunner.withPropertyValues("rmq.payload.current-key=k3").run(context ->
                assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessage("the current key of a ring must be one of its ids [k1, k2], was 'k3'"));
        contextRunner.withPropertyValues("rmq.topics.invoices.payload.compress-above=10B").run(context ->
                assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessage("compressAbove must be 0 (never) or at least 64 bytes, was 10"));
        contextRunner.withPropertyValues("rmq.topics.invoices.payload.encryptd=true").run(context ->
                assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("did you mean payload.encrypted?"));
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RmqRedisAutoConfiguration.class, RmqAutoConfiguration.class))
                .withPropertyValues("rmq.redis.address=" + RedisAndZooKeeper.redis().address(),
                        "rmq.topics.invoices.type=PRIORITY", "rmq.topics.invoices.payload.encrypted=true")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("topic 'invoices' encrypts its payloads, but the client has no key ring"));
    }
}
