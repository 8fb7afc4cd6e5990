package dev.rmq.test.testcontainers;

import dev.rmq.spring.autoconfigure.RmqRedisConnectionDetails;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionDetailsFactory;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionSource;
import org.testcontainers.containers.Container;

import java.util.List;

/**
 * Points rmq at a Redis container annotated with {@code @ServiceConnection}: a container of a {@code redis},
 * {@code redis/redis-stack-server} or {@code valkey/valkey} image, or any container whose {@code @ServiceConnection}
 * is named {@code redis}. Used by Spring Boot when {@code spring-boot-testcontainers} is on the test class path.
 */
final class RmqRedisContainerConnectionDetailsFactory
        extends ContainerConnectionDetailsFactory<Container<?>, RmqRedisConnectionDetails> {

    private static final int REDIS_PORT = 6379;

    RmqRedisContainerConnectionDetailsFactory() {
        super(List.of("redis", "redis/redis-stack", "redis/redis-stack-server", "valkey/valkey"));
    }

    @Override
    protected RmqRedisConnectionDetails getContainerConnectionDetails(ContainerConnectionSource<Container<?>> source) {
        return new ContainerDetails(source);
    }

    private static final class ContainerDetails extends ContainerConnectionDetails<Container<?>>
            implements RmqRedisConnectionDetails {

        ContainerDetails(ContainerConnectionSource<Container<?>> source) {
            super(source);
        }

        @Override
        public List<String> addresses() {
            Container<?> container = getContainer();
            return List.of((ssl() ? "rediss://" : "redis://") + container.getHost() + ":"
                    + container.getMappedPort(REDIS_PORT));
        }

        @Override
        public boolean ssl() {
            return getSslBundle() != null;
        }
    }
}
