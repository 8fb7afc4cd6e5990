package dev.rmq.server;

import dev.rmq.server.security.Exposure;
import dev.rmq.server.security.LoopbackDefault;
import dev.rmq.server.security.UnprotectedAddressException;
import dev.rmq.server.security.UnprotectedAddressFailureAnalyzer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.env.Environment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Without an API key the server is reachable from this machine only, and refuses to be reachable from others. */
@ServerTest
class LoopbackDefaultTests {

    @Autowired
    Environment environment;

    @Test
    void withoutAKeyTheRunningServerListensOnLoopbackOnly() {
        assertThat(environment.getProperty("server.address")).isEqualTo("127.0.0.1");
    }

    @Test
    void withoutAKeyOrAnAddressTheServerBindsToLoopback() {
        StandardEnvironment configured = environment(Map.of());

        postProcess(configured);

        assertThat(Exposure.of(environment(Map.of())).kind()).isEqualTo(Exposure.Kind.DEFAULT_LOOPBACK);
        assertThat(configured.getProperty("server.address")).isEqualTo("127.0.0.1");
    }

    @Test
    void aLoopbackAddressWithoutAKeyIsKept() {
        StandardEnvironment configured = environment(Map.of("server.address", "localhost"));

        postProcess(configured);

        assertThat(Exposure.of(configured).kind()).isEqualTo(Exposure.Kind.CONFIGURED_LOOPBACK);
        assertThat(configured.getProperty("server.address")).isEqualTo("localhost");
    }

    @Test
    void aReachableAddressWithoutAKeyRefusesToStart() {
        StandardEnvironment configured = environment(Map.of("server.address", "0.0.0.0"));

        assertThatThrownBy(() -> postProcess(configured)).isInstanceOf(UnprotectedAddressException.class)
                .hasMessageContaining("0.0.0.0").hasMessageContaining("rmq.server.api-keys");
        FailureAnalysis analysis = new UnprotectedAddressFailureAnalyzer()
                .analyze(new UnprotectedAddressException("server.address", "0.0.0.0"));
        assertThat(analysis.getAction()).contains("RMQ_SERVER_APIKEYS_0_KEY", "127.0.0.1");
    }

    @Test
    void withoutAKeyTheActuatorOnAPortOfItsOwnBindsToLoopbackToo() {
        StandardEnvironment unset = environment(Map.of("management.server.port", "9090"));
        StandardEnvironment loopbackApi = environment(Map.of("management.server.port", "9090",
                "server.address", "localhost"));

        postProcess(unset);
        postProcess(loopbackApi);

        assertThat(unset.getProperty("server.address")).isEqualTo("127.0.0.1");
        assertThat(unset.getProperty("management.server.address")).isEqualTo("127.0.0.1");
        assertThat(loopbackApi.getProperty("server.address")).isEqualTo("localhost");
        assertThat(loopbackApi.getProperty("management.server.address")).isEqualTo("127.0.0.1");
        StandardEnvironment shared = environment(Map.of("management.server.port", "8080"));
        postProcess(shared);
        assertThat(shared.getProperty("management.server.address")).as("the actuator shares the server's port")
                .isNull();
    }

    @Test
    void aReachableActuatorAddressWithoutAKeyRefusesToStart() {
        StandardEnvironment configured = environment(Map.of("management.server.port", "9090",
                "management.server.address", "0.0.0.0"));

        assertThatThrownBy(() -> postProcess(configured)).isInstanceOf(UnprotectedAddressException.class)
                .hasMessageContaining("management.server.address is 0.0.0.0").hasMessageContaining("actuator");
        FailureAnalysis analysis = new UnprotectedAddressFailureAnalyzer()
                .analyze(new UnprotectedAddressException("management.server.address", "0.0.0.0"));
        assertThat(analysis.getAction()).contains("leave management.server.address unset");
    }

    @Test
    void withAKeyAnyAddressIsAllowed() {
        StandardEnvironment configured = environment(Map.of("server.address", "0.0.0.0",
                "rmq.server.api-keys[0].key", "a-key-of-sixteen-characters", "rmq.server.api-keys[0].scope", "read-only"));

        postProcess(configured);

        Exposure exposure = Exposure.of(configured);
        assertThat(exposure.kind()).isEqualTo(Exposure.Kind.KEYS);
        assertThat(exposure.keys()).isEqualTo(1);
        assertThat(configured.getProperty("server.address")).isEqualTo("0.0.0.0");
    }

    private static StandardEnvironment environment(Map<String, Object> properties) {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new MapPropertySource("test", properties));
        return environment;
    }

    private static void postProcess(StandardEnvironment configured) {
        new LoopbackDefault(destination -> destination.get()).postProcessEnvironment(configured,
                new SpringApplication(RmqServerApplication.class));
    }
}
