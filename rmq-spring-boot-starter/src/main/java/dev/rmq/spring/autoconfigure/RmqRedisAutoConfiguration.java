package dev.rmq.spring.autoconfigure;

import dev.rmq.RmqClient;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The Redisson client rmq works on, unless the application defines its own {@code RedissonClient}: built
 * from {@code rmq.redis.*}, else from Spring Boot's {@code spring.data.redis.*}, for a single server,
 * Sentinel or Cluster, with AUTH/ACL credentials and TLS. Start-up fails when Redis cannot be reached.
 */
// After redisson-spring-boot-starter's configurations, so that a client they define is seen and reused.
@AutoConfiguration(before = RmqAutoConfiguration.class, afterName = {
        "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
        "org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration",
        "org.redisson.spring.starter.RedissonAutoConfiguration",
        "org.redisson.spring.starter.RedissonAutoConfigurationV2"})
@ConditionalOnClass({Redisson.class, RmqClient.class})
@EnableConfigurationProperties(RmqProperties.class)
public final class RmqRedisAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(RmqRedisAutoConfiguration.class);

    /** The properties' connection details, unless the application or a service connection gives its own. */
    @Bean
    @ConditionalOnMissingBean(RmqRedisConnectionDetails.class)
    PropertiesRmqRedisConnectionDetails rmqRedisConnectionDetails(RmqProperties properties, Environment environment) {
        return new PropertiesRmqRedisConnectionDetails(properties.redis(), environment);
    }

    /**
     * With Spring Data Redis, rmq follows the Redis the application's {@code DataRedisConnectionDetails} name when
     * they come from a service connection or a bean of the application's own, and {@code rmq.redis.*} names no
     * server. Boot's own details of {@code spring.data.redis.*} are left to the properties' details, which read the
     * same keys and also the SSL bundle and client name.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = DATA_REDIS_DETAILS)
    static final class FromSpringDataRedis {

        @Bean
        @ConditionalOnMissingBean(RmqRedisConnectionDetails.class)
        @ConditionalOnBean(type = DATA_REDIS_DETAILS)
        RmqRedisConnectionDetails rmqDataRedisConnectionDetails(RmqProperties properties, Environment environment,
                                                                DataRedisConnectionDetails data) {
            if (properties.redis().isConfigured() || data.getClass().getName().equals(BOOT_PROPERTIES_DETAILS)) {
                return new PropertiesRmqRedisConnectionDetails(properties.redis(), environment);
            }
            return new DataRedisRmqConnectionDetails(data);
        }
    }

    static final String DATA_REDIS_DETAILS = "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails";
    /** Boot's details of {@code spring.data.redis.*}, a class its package keeps to itself. */
    static final String BOOT_PROPERTIES_DETAILS =
            "org.springframework.boot.data.redis.autoconfigure.PropertiesDataRedisConnectionDetails";

    @Bean(destroyMethod = "shutdown")
    @ConditionalOnMissingBean(RedissonClient.class)
    RedissonClient rmqRedissonClient(RmqProperties properties, ObjectProvider<SslBundles> sslBundles,
                                     RmqRedisConnectionDetails details) {
        RedisConnection connection = RedisConnection.fromDetails(details, properties.redis());
        Config config = RedissonConfigFactory.create(connection, sslBundles.getIfAvailable(), properties.redis().pool());
        log.info("rmq connects to Redis: {}", connection.describe());
        try {
            return Redisson.create(config);
        } catch (RuntimeException e) {
            throw new RmqStartupConnectionException("Redis", connection.describe(), "set rmq.redis.address=redis://host:port"
                    + " (or rmq.redis.nodes for a Cluster, rmq.redis.sentinel.master and rmq.redis.sentinel.nodes for"
                    + " Sentinel), or spring.data.redis.*, or define an RmqRedisConnectionDetails or RedissonClient bean",
                    e);
        }
    }
}
