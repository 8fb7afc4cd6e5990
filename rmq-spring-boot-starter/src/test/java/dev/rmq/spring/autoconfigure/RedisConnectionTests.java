package dev.rmq.spring.autoconfigure;

import org.junit.jupiter.api.Test;
import org.redisson.config.Config;
import org.redisson.config.SslVerificationMode;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.mock.env.MockEnvironment;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * How properties become a Redisson configuration, for the modes no test server runs here (Sentinel) and
 * for the details a live connection does not show. Nothing here connects to anything.
 */
class RedisConnectionTests {

    @Test
    void defaultsToLocalhostLikeSpringBootWhenNothingIsConfigured() {
        RedisConnection connection = resolve(Map.of(), new MockEnvironment());
        assertThat(connection.describe()).isEqualTo("single server redis://localhost:6379 (from the default"
                + " (no rmq.redis or spring.data.redis))");
    }

    @Test
    void buildsASentinelConfigurationWithItsCredentials() throws IOException {
        RedisConnection connection = resolve(Map.of("rmq.redis.sentinel.master", "mymaster",
                "rmq.redis.sentinel.nodes", "10.0.0.1:26379,10.0.0.2:26379", "rmq.redis.sentinel.password", "sentinel-pw",
                "rmq.redis.password", "data-pw", "rmq.redis.database", "3"), new MockEnvironment());
        Config config = RedissonConfigFactory.create(connection, null, null);

        assertThat(config.isSentinelConfig()).isTrue();
        assertThat(config.getPassword()).isEqualTo("data-pw");
        assertThat(config.toYAML()).contains("masterName: \"mymaster\"", "redis://10.0.0.1:26379", "redis://10.0.0.2:26379",
                "sentinelPassword: \"sentinel-pw\"", "database: 3");
    }

    @Test
    void readsSentinelAndClusterFromSpringDataRedis() throws IOException {
        MockEnvironment sentinel = new MockEnvironment().withProperty("spring.data.redis.sentinel.master", "m")
                .withProperty("spring.data.redis.sentinel.nodes", "s1:26379");
        assertThat(RedissonConfigFactory.create(resolve(Map.of(), sentinel), null, null).toYAML())
                .contains("masterName: \"m\"", "redis://s1:26379");

        MockEnvironment cluster = new MockEnvironment().withProperty("spring.data.redis.cluster.nodes", "c1:7000,c2:7001")
                .withProperty("spring.data.redis.username", "u").withProperty("spring.data.redis.password", "p");
        Config config = RedissonConfigFactory.create(resolve(Map.of(), cluster), null, null);
        assertThat(config.isClusterConfig()).isTrue();
        assertThat(config.getUsername()).isEqualTo("u");
        assertThat(config.toYAML()).contains("redis://c1:7000", "redis://c2:7001");
    }

    @Test
    void turnsOnTlsForARedissAddressOrTheSslFlag() throws IOException {
        RedisConnection rediss = resolve(Map.of("rmq.redis.address", "rediss://redis.example:6380"), new MockEnvironment());
        assertThat(rediss.ssl()).isTrue();
        assertThat(RedissonConfigFactory.create(rediss, null, null).toYAML()).contains("rediss://redis.example:6380");

        RedisConnection flagged = resolve(Map.of("rmq.redis.nodes", "c1:7000", "rmq.redis.ssl.enabled", "true",
                "rmq.redis.ssl.verification", "ca-only"), new MockEnvironment());
        Config config = RedissonConfigFactory.create(flagged, null, null);
        assertThat(config.toYAML()).contains("rediss://c1:7000");
        assertThat(config.getSslVerificationMode()).isEqualTo(SslVerificationMode.CA_ONLY);

        MockEnvironment springSsl = new MockEnvironment().withProperty("spring.data.redis.url", "rediss://h:6390");
        assertThat(resolve(Map.of(), springSsl).addresses()).containsExactly("rediss://h:6390");
    }

    @Test
    void refusesAnSslBundleThatDoesNotExist() {
        RedisConnection connection = resolve(Map.of("rmq.redis.address", "rediss://h:6380", "rmq.redis.ssl.bundle", "nope"),
                new MockEnvironment());
        assertThatIllegalArgumentException().isThrownBy(() -> RedissonConfigFactory.create(connection, null, null))
                .withMessage("SSL bundle 'nope' is named in rmq.redis, but the application has no SslBundles (spring.ssl.bundle.*)");
    }

    @Test
    void refusesADatabaseOnCluster() {
        RedisConnection connection = resolve(Map.of("rmq.redis.nodes", "c1:7000", "rmq.redis.database", "1"),
                new MockEnvironment());
        assertThatIllegalArgumentException().isThrownBy(() -> RedissonConfigFactory.create(connection, null, null))
                .withMessage("Redis Cluster has only database 0, but database 1 is set in rmq.redis");
    }

    @Test
    void refusesAMalformedSpringDataRedisUrl() {
        MockEnvironment environment = new MockEnvironment().withProperty("spring.data.redis.url", "http://h:1");
        assertThatIllegalArgumentException().isThrownBy(() -> resolve(Map.of(), environment))
                .withMessageContaining("spring.data.redis.url must look like redis://[user:password@]host[:port][/database]");
    }

    private static RedisConnection resolve(Map<String, String> rmq, MockEnvironment environment) {
        Map<String, String> all = new LinkedHashMap<>(rmq);
        RmqProperties properties = new Binder(new MapConfigurationPropertySource(all)).bindOrCreate("rmq", RmqProperties.class);
        return RedisConnection.resolve(properties.redis(), environment);
    }
}
