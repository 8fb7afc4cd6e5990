package dev.rmq.test.testcontainers;

import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.Configuration;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @ServiceConnection} on a Redis container points rmq at it. Needs Docker: skipped, with the reason, where
 * there is none. {@link FactoryRegistrationTests} checks that the
 * factories load everywhere.
 */
@SpringBootTest(classes = ServiceConnectionTests.App.class, properties = {
        "rmq.redis.address=redis://127.0.0.1:1", "rmq.topics.invoices.type=PRIORITY"})
@Testcontainers(disabledWithoutDocker = true)
class ServiceConnectionTests {

    @Container
    @ServiceConnection
    static final GenericContainer<?> REDIS = new GenericContainer<>("redis:7.4").withExposedPorts(6379);

    @Autowired
    RedissonClient redisson;

    @Test
    void rmqUsesTheContainer() {
        assertThat(redisson.getConfig().useSingleServer().getAddress())
                .isEqualTo("redis://" + REDIS.getHost() + ":" + REDIS.getMappedPort(6379));
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
    }
}
