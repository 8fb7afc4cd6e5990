package dev.rmq.spring.journal;

import dev.rmq.RmqClient;
import dev.rmq.journal.jdbc.JdbcJournal;
import dev.rmq.journal.jdbc.RestoreRequest;
import dev.rmq.spring.autoconfigure.RmqAutoConfiguration;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import javax.sql.DataSource;

/**
 * A {@link JdbcJournal} on the application's DataSource when {@code rmq.journal.enabled=true}: the client bean takes
 * it ({@link RmqAutoConfiguration} gives the application's one {@code MessageJournal} bean to the client, and
 * refuses to start with several), and it is attached to the client once both exist, so that restores write to the
 * client's Redis. A restore at start-up runs before the listeners start.
 */
@AutoConfiguration(before = RmqAutoConfiguration.class,
        afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass(JdbcJournal.class)
@ConditionalOnProperty(prefix = "rmq.journal", name = "enabled", havingValue = "true")
@EnableConfigurationProperties(RmqJournalProperties.class)
public final class RmqJournalAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    JdbcJournal rmqJournal(ObjectProvider<DataSource> dataSource, RmqJournalProperties properties) {
        DataSource source = dataSource.getIfUnique();
        if (source == null) {
            throw new IllegalStateException("rmq.journal.enabled=true needs one DataSource (PostgreSQL or"
                    + " MySQL/MariaDB), and the application has " + (dataSource.stream().findAny().isPresent()
                    ? "several; mark one @Primary" : "none; set spring.datasource.url or define a DataSource bean"));
        }
        JdbcJournal.Builder journal = JdbcJournal.builder(source);
        // only what is set: the builder holds the defaults, and checks every value
        PropertyMapper map = PropertyMapper.get();
        map.from(properties.mode()).to(journal::mode);
        map.from(properties.bufferCapacity()).to(journal::bufferCapacity);
        map.from(properties.batchSize()).to(journal::batchSize);
        map.from(properties.whenUnavailable()).to(journal::whenUnavailable);
        map.from(properties.blockTimeout()).to(journal::blockTimeout);
        map.from(properties.syncTimeout()).to(journal::syncTimeout);
        map.from(properties.historyRetention()).to(journal::retention);
        map.from(properties.pruneInterval()).to(journal::pruneInterval);
        map.from(properties.closeTimeout()).to(journal::closeTimeout);
        map.from(properties.migrate()).to(journal::migrate);
        map.from(properties.host()).when(host -> !host.isBlank()).to(journal::host);
        properties.topics().forEach(journal::mode);
        return journal.build();
    }

    /** Restores into the application's client once every singleton exists, when asked to. */
    @Bean
    SmartInitializingSingleton rmqJournalRestoreOnStartup(JdbcJournal journal, ObjectProvider<RmqClient> client,
                                                          RmqJournalProperties properties) {
        return () -> {
            RmqClient target = client.getIfUnique();
            if (target != null && properties.restoreOnStartup()) {
                journal.restore(target, RestoreRequest.all());
            }
        };
    }

    /** The journal's buffer, lag and counts as meters, when Micrometer is there. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterBinder.class)
    static final class Meters {

        @Bean
        MeterBinder rmqJournalMeters(JdbcJournal journal) {
            return registry -> {
                Gauge.builder("rmq.journal.buffered", journal, j -> j.stats().buffered())
                        .description("journal rows waiting to be written").register(registry);
                Gauge.builder("rmq.journal.lag", journal, j -> j.stats().lag().toNanos() / 1e9).baseUnit("seconds")
                        .description("how long the oldest unwritten journal row has waited").register(registry);
                FunctionCounter.builder("rmq.journal.written", journal, j -> j.stats().written())
                        .description("journal rows written").register(registry);
                FunctionCounter.builder("rmq.journal.gap", journal, j -> j.stats().gap())
                        .description("journal rows dropped because the buffer was full").register(registry);
                FunctionCounter.builder("rmq.journal.failures", journal, j -> j.stats().failures())
                        .description("failed journal writes, each retried").register(registry);
                FunctionCounter.builder("rmq.journal.pruned", journal, j -> j.stats().pruned())
                        .description("journaled messages removed by retention: finished, or open past their time to live").register(registry);
            };
        }
    }
}
