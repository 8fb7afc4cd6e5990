package dev.rmq.samples;

import dev.rmq.embedded.EmbeddedZooKeeper;
import dev.rmq.embedded.RedisServer;
import dev.rmq.embedded.RedisServerOptions;
import org.apache.commons.logging.Log;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.config.ConfigDataEnvironmentPostProcessor;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The sample's embedded default. When the configuration names no Redis, it starts a local redis-server
 * (rmq-embedded's {@link RedisServer}: from PATH, or the binary shipped in the embedded-redis artifact) on a
 * free port; when it names no ZooKeeper, it starts one in-process ({@link EmbeddedZooKeeper}). Either way the
 * application then connects as it would to real
 * servers, through {@code rmq.redis.address} and {@code rmq.zookeeper.connect-string}.
 *
 * <p>The servers are registered as the context's first disposable bean, so they stop after everything
 * that uses them has: after the listener containers finished and the clients closed. Hence Redis is started
 * {@linkplain RedisServerOptions#stoppedOnlyByClose() without the helper's exit hook}, which would kill it
 * while the application still acknowledges its messages in flight.
 * {@code samples.embedded=false} turns this off.
 */
public class EmbeddedInfrastructure implements EnvironmentPostProcessor, Ordered {

    static final String ENABLED = "samples.embedded";

    private static final List<String> REDIS_PROPERTIES = List.of("rmq.redis.address", "rmq.redis.nodes",
            "rmq.redis.nodes[0]", "rmq.redis.sentinel.master", "spring.data.redis.host", "spring.data.redis.port",
            "spring.data.redis.url", "spring.data.redis.cluster.nodes", "spring.data.redis.cluster.nodes[0]",
            "spring.data.redis.sentinel.master");

    private final Log log;

    /** Logging is not set up yet when environment post-processors run; Boot replays this log once it is. */
    public EmbeddedInfrastructure(DeferredLogFactory logs) {
        this.log = logs.getLog(EmbeddedInfrastructure.class);
    }

    @Override
    public int getOrder() {
        // after application.yml and the command line have been read
        return ConfigDataEnvironmentPostProcessor.ORDER + 1;
    }

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        if (!environment.getProperty(ENABLED, Boolean.class, true)) {
            return;
        }
        boolean redisConfigured = REDIS_PROPERTIES.stream().anyMatch(environment::containsProperty);
        boolean zooKeeperConfigured = environment.containsProperty("rmq.zookeeper.connect-string");
        if (redisConfigured && zooKeeperConfigured) {
            return;
        }
        Map<String, Object> properties = new LinkedHashMap<>();
        RedisServer redis = null;
        EmbeddedZooKeeper zookeeper = null;
        try {
            if (!redisConfigured) {
                redis = RedisServer.start(RedisServerOptions.defaults().stoppedOnlyByClose());
                properties.put("rmq.redis.address", redis.address());
                log.info("No Redis is configured: started " + redis + " from " + redis.binary().source() + " for this run; it stops with the application."
                        + " Set rmq.redis.address or spring.data.redis.* to use your own.");
            }
            if (!zooKeeperConfigured) {
                zookeeper = EmbeddedZooKeeper.start();
                properties.put("rmq.zookeeper.connect-string", zookeeper.connectString());
                log.info("No ZooKeeper is configured: started one in-process at " + zookeeper.connectString()
                        + "; it stops with the application. Set rmq.zookeeper.connect-string to use your own.");
            }
        } catch (Exception e) {
            new EmbeddedServers(redis, zookeeper).close();
            throw new IllegalStateException("The sample could not start its embedded servers: " + e.getMessage()
                    + "; configure rmq.redis.address and rmq.zookeeper.connect-string instead", e);
        }
        environment.getPropertySources().addFirst(new MapPropertySource("rmqSamplesEmbeddedServers", properties));
        EmbeddedServers servers = new EmbeddedServers(redis, zookeeper);
        application.addInitializers(context -> registerForShutdown(context, servers));
        // Also when no context ever closes (start-up failed early): Spring runs these after closing contexts.
        SpringApplication.getShutdownHandlers().add(servers::close);
    }

    private static void registerForShutdown(ConfigurableApplicationContext context, EmbeddedServers servers) {
        // Disposable beans are destroyed in reverse order of registration: registered first, stopped last.
        DefaultListableBeanFactory beans = (DefaultListableBeanFactory) context.getBeanFactory();
        beans.registerSingleton("rmqSamplesEmbeddedServers", servers);
        beans.registerDisposableBean("rmqSamplesEmbeddedServers", servers::close);
    }
}
