package dev.rmq.test;

import dev.rmq.embedded.EmbeddedZooKeeper;
import dev.rmq.embedded.RedisServer;
import dev.rmq.embedded.RedisServerOptions;
import dev.rmq.spring.autoconfigure.RmqRedisConnectionDetails;
import dev.rmq.spring.autoconfigure.RmqZooKeeperConnectionDetails;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;

import java.util.List;

/**
 * Starts the servers of {@link EmbeddedRmq} as the test's context is prepared and stops them when it closes. A
 * record, so that contexts with the same settings are one entry of Spring's context cache.
 *
 * @param zookeeper whether to start a ZooKeeper too
 */
record EmbeddedRmqContextCustomizer(boolean zookeeper) implements ContextCustomizer {

    static final String SERVERS_BEAN = "rmqEmbeddedServers";
    static final String TESTER_BEAN = "rmqTester";

    @Override
    public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration configuration) {
        // Stopped by the context alone: the JVM's exit hook would race the context's own and pull Redis away from
        // listeners still acknowledging their last messages.
        RedisServer redis = RedisServer.start(RedisServerOptions.defaults().stoppedOnlyByClose());
        EmbeddedZooKeeper zooKeeper = null;
        try {
            zooKeeper = zookeeper ? EmbeddedZooKeeper.start() : null;
        } catch (RuntimeException e) {
            redis.close();
            throw e;
        }
        Servers servers = new Servers(redis, zooKeeper);
        DefaultListableBeanFactory beans = (DefaultListableBeanFactory) context.getBeanFactory();
        // Disposable beans are destroyed in reverse order of registration: registered first, stopped last,
        // and also when the context fails to refresh.
        beans.registerSingleton(SERVERS_BEAN, servers);
        beans.registerDisposableBean(SERVERS_BEAN, servers::close);
        beans.registerSingleton("rmqEmbeddedRedisConnectionDetails",
                (RmqRedisConnectionDetails) () -> List.of(redis.address()));
        if (zooKeeper != null) {
            String connectString = zooKeeper.connectString();
            beans.registerSingleton("rmqEmbeddedZooKeeperConnectionDetails",
                    (RmqZooKeeperConnectionDetails) () -> connectString);
        }
        RootBeanDefinition tester = new RootBeanDefinition(RmqTester.class);
        tester.setAutowireMode(AbstractBeanDefinition.AUTOWIRE_CONSTRUCTOR);
        tester.setLazyInit(true);
        ((BeanDefinitionRegistry) context).registerBeanDefinition(TESTER_BEAN, tester);
    }

    /** The servers of one context. */
    record Servers(RedisServer redis, @Nullable EmbeddedZooKeeper zooKeeper) {

        void close() {
            if (zooKeeper != null) {
                zooKeeper.close();
            }
            redis.close();
        }
    }
}
