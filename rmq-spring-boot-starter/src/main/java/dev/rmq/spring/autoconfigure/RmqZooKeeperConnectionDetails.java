package dev.rmq.spring.autoconfigure;

import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;

/**
 * Where rmq's ZooKeeper is: from {@code rmq.zookeeper.connect-string}, or a bean of the application's or a service
 * connection's, which wins. A {@code CuratorFramework} bean of the application's wins over both.
 */
public interface RmqZooKeeperConnectionDetails extends ConnectionDetails {

    /** The ensemble, as {@code host1:2181,host2:2181}. */
    String connectString();
}
