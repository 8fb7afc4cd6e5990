package dev.rmq.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RedisBinaryTests {

    // The build passes rmq.test.redis into the test JVM; restore whatever it was, don't just clear it.
    private String originalMode;
    private String originalBinary;

    @BeforeEach
    void rememberSwitches() {
        originalMode = System.getProperty(RedisBinary.MODE_PROPERTY);
        originalBinary = System.getProperty(RedisBinary.BINARY_PROPERTY);
    }

    @AfterEach
    void restoreSwitches() {
        restore(RedisBinary.MODE_PROPERTY, originalMode);
        restore(RedisBinary.BINARY_PROPERTY, originalBinary);
    }

    @Test
    void forcingEmbeddedResolvesTheArtifactBinaryOfRedis62() {
        System.setProperty(RedisBinary.MODE_PROPERTY, "embedded");

        RedisBinary binary = RedisBinary.resolve();

        assertThat(binary.source()).isEqualTo(RedisBinary.SOURCE_EMBEDDED).isEqualTo("embedded-redis 6.2 artifact");
        assertThat(binary.version()).startsWith("6.2");
        assertThat(binary.majorVersion()).isEqualTo(6);
        assertThat(Files.isExecutable(binary.path())).isTrue();
        assertThat(binary.path()).startsWith(Path.of(System.getProperty("java.io.tmpdir")));
    }

    @Test
    void withoutTheSwitchTheBinaryOnPathIsPreferredEvenAfterAForcedResolution() {
        assumeTrue(pathHasRedisServer(), "no redis-server on PATH");
        assumeFalse("embedded".equalsIgnoreCase(System.getenv(RedisBinary.MODE_ENV)), "RMQ_TEST_REDIS=embedded is set");

        System.setProperty(RedisBinary.MODE_PROPERTY, "embedded");
        assertThat(RedisBinary.resolve().source()).isEqualTo(RedisBinary.SOURCE_EMBEDDED);
        System.setProperty(RedisBinary.MODE_PROPERTY, "path");
        assertThat(RedisBinary.resolve().source()).isEqualTo(RedisBinary.SOURCE_PATH);
        System.clearProperty(RedisBinary.MODE_PROPERTY);
        assertThat(RedisBinary.resolve().source()).isEqualTo(RedisBinary.SOURCE_PATH);
    }

    @Test
    void anExplicitBinaryWinsOverEverySwitch() {
        System.setProperty(RedisBinary.MODE_PROPERTY, "embedded");
        Path embedded = RedisBinary.resolve().path();
        System.setProperty(RedisBinary.BINARY_PROPERTY, embedded.toString());

        RedisBinary binary = RedisBinary.resolve();

        assertThat(binary.source()).isEqualTo(RedisBinary.SOURCE_EXPLICIT);
        assertThat(binary.path()).isEqualTo(embedded);
    }

    @Test
    void anExplicitPathThatIsNotExecutableIsRejected() {
        System.setProperty(RedisBinary.BINARY_PROPERTY, "/does/not/exist/redis-server");

        assertThatThrownBy(RedisBinary::resolve)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("/does/not/exist/redis-server");
    }

    @Test
    void anUnknownModeIsRejected() {
        System.setProperty(RedisBinary.MODE_PROPERTY, "docker");

        assertThatThrownBy(RedisBinary::resolve)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rmq.test.redis=docker");
    }

    @Test
    void theArtifactResourceIsChosenByOperatingSystemAndArchitecture() {
        assertThat(RedisBinary.embeddedResourceName("Linux", "amd64")).isEqualTo("redis-server-6.2.6-v5-linux-amd64");
        assertThat(RedisBinary.embeddedResourceName("Linux", "aarch64")).isEqualTo("redis-server-6.2.7-linux-arm64");
        assertThat(RedisBinary.embeddedResourceName("Mac OS X", "x86_64")).isEqualTo("redis-server-6.2.6-v5-darwin-amd64");
        assertThat(RedisBinary.embeddedResourceName("Mac OS X", "aarch64")).isEqualTo("redis-server-6.2.6-v5-darwin-arm64");
        assertThatThrownBy(() -> RedisBinary.embeddedResourceName("Windows 11", "amd64"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Windows 11").hasMessageContaining("amd64");
    }

    private static boolean pathHasRedisServer() {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String entry : path.split(java.io.File.pathSeparator)) {
            if (!entry.isBlank() && Files.isExecutable(Path.of(entry, "redis-server"))) {
                return true;
            }
        }
        return false;
    }

    private static void restore(String name, String value) {
        if (value == null) {
            System.clearProperty(name);
        } else {
            System.setProperty(name, value);
        }
    }
}
