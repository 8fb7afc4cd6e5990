package dev.rmq.test.testcontainers;

import dev.rmq.spring.autoconfigure.RmqZooKeeperConnectionDetails;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionDetailsFactory;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionSource;
import org.testcontainers.containers.Container;

/**
 * Points rmq at a ZooKeeper container annotated with {@code @ServiceConnection}: a container of the
 * {@code zookeeper} image, or any container whose {@code @ServiceConnection} is named {@code zookeeper}.
 */
final class RmqZooKeeperContainerConnectionDetailsFactory
        extends ContainerConnectionDetailsFactory<Container<?>, RmqZooKeeperConnectionDetails> {

    private static final int CLIENT_PORT = 2181;

    RmqZooKeeperContainerConnectionDetailsFactory() {
        super("zookeeper");
    }

    @Override
    protected RmqZooKeeperConnectionDetails getContainerConnectionDetails(
            ContainerConnectionSource<Container<?>> source) {
        return new ContainerDetails(source);
    }

    private static final class ContainerDetails extends ContainerConnectionDetails<Container<?>>
            implements RmqZooKeeperConnectionDetails {

        ContainerDetails(ContainerConnectionSource<Container<?>> source) {
            super(source);
        }

        @Override
        public String connectString() {
            return getContainer().getHost() + ":" + getContainer().getMappedPort(CLIENT_PORT);
        }
    }
}
