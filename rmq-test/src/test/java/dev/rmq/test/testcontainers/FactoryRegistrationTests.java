package dev.rmq.test.testcontainers;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetailsFactory;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/** Spring Boot finds and builds rmq's container connection factories, Docker or not. */
class FactoryRegistrationTests {

    @Test
    void bootLoadsBothFactories() {
        assertThat(SpringFactoriesLoader.forDefaultResourceLocation(getClass().getClassLoader())
                .load(ConnectionDetailsFactory.class))
                .hasAtLeastOneElementOfType(RmqRedisContainerConnectionDetailsFactory.class)
                .hasAtLeastOneElementOfType(RmqZooKeeperContainerConnectionDetailsFactory.class);
    }
}
