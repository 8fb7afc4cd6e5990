package dev.rmq.faults;

import dev.rmq.testsupport.TcpProxy;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * One consumer's network: a loopback proxy in front of the standalone Redis and one in front of each ZooKeeper
 * server, so that a fault can slow, stall, reset or refuse that consumer's links alone while every other process
 * still reaches the servers directly. Cluster nodes are reached directly: a Cluster announces its nodes'
 * own addresses, which a client follows past any proxy. The proxies outlive the consumer's restarts.
 */
final class NetworkLinks implements AutoCloseable {

    private final @Nullable TcpProxy redis;
    private final List<TcpProxy> zookeeper = new ArrayList<>();

    /**
     * @param standalone the standalone Redis address (redis://host:port), or null when the run has none
     * @param zkConnect  the ensemble's connect string, host:port,...
     */
    NetworkLinks(@Nullable String standalone, String zkConnect) {
        this.redis = standalone == null ? null : proxyTo(standalone.substring(standalone.indexOf("://") + 3));
        for (String server : zkConnect.split(",")) {
            zookeeper.add(proxyTo(server));
        }
    }

    private static TcpProxy proxyTo(String hostAndPort) {
        int colon = hostAndPort.lastIndexOf(':');
        return TcpProxy.to(hostAndPort.substring(0, colon), Integer.parseInt(hostAndPort.substring(colon + 1)));
    }

    /** The run's Redis addresses as this consumer reaches them: the standalone through its proxy. */
    Map<Deployment, List<String>> redisAddresses(Map<Deployment, List<String>> direct) {
        Map<Deployment, List<String>> mine = new EnumMap<>(direct);
        if (redis != null && mine.containsKey(Deployment.STANDALONE)) {
            mine.put(Deployment.STANDALONE, List.of(redis.redisAddress()));
        }
        return mine;
    }

    /** The ensemble's connect string through this consumer's proxies. */
    String zkConnect() {
        return String.join(",", zookeeper.stream().map(TcpProxy::hostAndPort).toList());
    }

    /** The link to the standalone Redis; the run must have one. */
    TcpProxy redis() {
        if (redis == null) {
            throw new IllegalStateException("this run has no standalone Redis");
        }
        return redis;
    }

    List<TcpProxy> zookeeper() {
        return zookeeper;
    }

    @Override
    public void close() {
        if (redis != null) {
            redis.close();
        }
        zookeeper.forEach(TcpProxy::close);
    }
}
