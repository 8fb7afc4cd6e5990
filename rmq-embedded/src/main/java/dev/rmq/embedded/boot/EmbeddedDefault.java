package dev.rmq.embedded.boot;

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
 * An application's embedded default, for trying it with nothing installed: registered by the application (a
 * subclass in its {@code META-INF/spring.factories}), it starts, when the configuration names no Redis, a local
 * redis-server (from PATH, or the binary shipped in the embedded-redis artifact) on a free loopback port, and when
 * it names no ZooKeeper, one in-process. The application then connects to them as to real servers, through
 * {@code rmq.redis.address} and {@code rmq.zookeeper.connect-string}.
 *
 * <p>The servers are the context's first disposable bean, so they stop last: after the listeners and pullers have
 * finished and handed their messages back, and the clients have closed. Redis is therefore started without the
 * embedded module's exit hook, which would kill it while messages are still acknowledged or handed back. The
 * application's own property turns all of this off, and start-up then fails on a missing Redis as any rmq
 * application does.
 */
public abstract class EmbeddedDefault implements EnvironmentPostProcessor, Ordered {

    private static final String BEAN = "rmqEmbeddedDefaultServers";

    /** Every way the starter can be told where Redis is; any of them means a Redis of the user's own. */
    private static final List<String> REDIS_PROPERTIES = List.of("rmq.redis.address", "rmq.redis.nodes",
            "rmq.redis.nodes[0]", "rmq.redis.sentinel.master", "spring.data.redis.host", "spring.data.redis.port",
            "spring.data.redis.url", "spring.data.redis.cluster.nodes", "spring.data.redis.cluster.nodes[0]",
            "spring.data.redis.sentinel.master");

    private final Log log;
    private final String enabledProperty;
    private final String owner;

    /**
     * @param logs            Boot's deferred logs: logging is not set up when environment post-processors run, and
     *                        Boot replays this log once it is
     * @param enabledProperty the application's property that turns the embedded default off when false
     * @param owner           the application, as the logs and errors name it
     */
    protected EmbeddedDefault(DeferredLogFactory logs, String enabledProperty, String owner) {
        this.log = logs.getLog(getClass());
        this.enabledProperty = enabledProperty;
        this.owner = owner;
    }

    @Override
    public int getOrder() {
        // after application.yml, the environment and the command line have been read
        return ConfigDataEnvironmentPostProcessor.ORDER + 1;
    }

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        if (!environment.getProperty(enabledProperty, Boolean.class, true)) {
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
                whenRedisStarted(environment, properties);
                log.info("No Redis is configured: started " + redis + " from " + redis.binary().source()
                        + " for this run; it stops with " + owner + " and keeps nothing. Set rmq.redis.address"
                        + " (RMQ_REDIS_ADDRESS) to use your own.");
            }
            if (!zooKeeperConfigured) {
                zookeeper = EmbeddedZooKeeper.start();
                properties.put("rmq.zookeeper.connect-string", zookeeper.connectString());
                log.info("No ZooKeeper is configured: started one in-process at " + zookeeper.connectString()
                        + "; it stops with " + owner + ". Set rmq.zookeeper.connect-string"
                        + " (RMQ_ZOOKEEPER_CONNECTSTRING) to use your own.");
            }
        } catch (RuntimeException e) {
            new EmbeddedServers(redis, zookeeper).close();
            throw new IllegalStateException(owner + " could not start its embedded servers: " + e.getMessage()
                    + "; set rmq.redis.address and rmq.zookeeper.connect-string to servers of your own, or"
                    + " " + enabledProperty + "=false", e);
        }
        environment.getPropertySources().addFirst(new MapPropertySource(BEAN, properties));
        EmbeddedServers servers = new EmbeddedServers(redis, zookeeper);
        application.addInitializers(context -> registerForShutdown(context, servers));
        // Also when no context ever closes (start-up failed early): Spring runs these after closing contexts.
        SpringApplication.getShutdownHandlers().add(servers::close);
    }

    /**
     * Lets the application add properties of its own once a Redis was started for it (one that keeps nothing
     * across restarts); {@code properties} take precedence over every other source.
     */
    protected void whenRedisStarted(ConfigurableEnvironment environment, Map<String, Object> properties) {
    }

    private static void registerForShutdown(ConfigurableApplicationContext context, EmbeddedServers servers) {
        // Disposable beans are destroyed in reverse order of registration: registered first, stopped last.
        DefaultListableBeanFactory beans = (DefaultListableBeanFactory) context.getBeanFactory();
        beans.registerSingleton(BEAN, servers);
        beans.registerDisposableBean(BEAN, servers::close);
    }
}
