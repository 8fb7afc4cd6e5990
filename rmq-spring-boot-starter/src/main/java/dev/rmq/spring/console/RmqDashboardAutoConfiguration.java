package dev.rmq.spring.console;

import dev.rmq.RmqClient;
import dev.rmq.coordination.RmqCoordinator;
import dev.rmq.journal.jdbc.JdbcJournal;
import dev.rmq.spring.actuate.SlotOwners;
import dev.rmq.spring.autoconfigure.RmqAutoConfiguration;
import dev.rmq.spring.autoconfigure.RmqCoordinationAutoConfiguration;
import dev.rmq.spring.journal.RmqJournalAutoConfiguration;
import dev.rmq.spring.listener.RmqListenerEndpointRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.http.HttpServlet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

/**
 * The web console, when {@code rmq.dashboard.enabled=true}, on the application's own servlet web server at
 * {@code rmq.dashboard.path}: whatever guards the application's other pages (Spring Security's filter chain, a
 * proxy) guards it too.
 */
@AutoConfiguration(after = {RmqAutoConfiguration.class, RmqCoordinationAutoConfiguration.class,
        RmqJournalAutoConfiguration.class},
        afterName = {"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
                "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
                "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple"
                        + ".SimpleMetricsExportAutoConfiguration"})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({HttpServlet.class, ServletRegistrationBean.class})
@ConditionalOnProperty(prefix = "rmq.dashboard", name = "enabled", havingValue = "true")
@ConditionalOnBean(RmqClient.class)
@EnableConfigurationProperties(RmqDashboardProperties.class)
public final class RmqDashboardAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(RmqDashboardAutoConfiguration.class);
    private static final String CSRF_TOKEN = "org.springframework.security.web.csrf.CsrfToken";

    @Bean(initMethod = "start", destroyMethod = "close")
    ConsoleHistory rmqConsoleHistory(RmqClient client, ObjectProvider<RmqListenerEndpointRegistry> registry,
                                     ObjectProvider<RmqCoordinator> coordinator, ObjectProvider<ConsoleMeters> meters,
                                     RmqDashboardProperties properties) {
        ConsoleData data = new ConsoleData(client, new SlotOwners(registry.getIfUnique(), coordinator.getIfUnique()),
                properties.refresh());
        return new ConsoleHistory(data, meters.getIfUnique(() -> ConsoleMeters.NONE), properties.refresh(),
                properties.history());
    }

    /** With the JDBC journal, the console shows its health and restores from it. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(JdbcJournal.class)
    static final class Journal {

        @Bean
        @ConditionalOnBean(JdbcJournal.class)
        ConsoleJournal rmqConsoleJournal(JdbcJournal journal, RmqClient client) {
            return new JdbcConsoleJournal(journal, client);
        }
    }

    /** With Micrometer, the charts and the overview read this application's rates and lateness from its meters. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    static final class Meters {

        @Bean
        @ConditionalOnBean(MeterRegistry.class)
        ConsoleMeters rmqConsoleMeters(MeterRegistry registry) {
            return new MicrometerConsoleMeters(registry);
        }
    }

    @Bean
    ServletRegistrationBean<ConsoleServlet> rmqConsole(ConsoleHistory history, ObjectProvider<ConsoleJournal> journal,
                                                       RmqDashboardProperties properties) {
        ClassLoader loader = RmqDashboardAutoConfiguration.class.getClassLoader();
        Class<?> csrf = ClassUtils.isPresent(CSRF_TOKEN, loader) ? ClassUtils.resolveClassName(CSRF_TOKEN, loader) : null;
        Boolean asked = properties.writeOperationsEnabled();
        boolean writes = asked != null ? asked : csrf != null;
        ConsoleServlet servlet = new ConsoleServlet(history.data(), history, new ConsoleAccess(writes, csrf),
                journal.getIfUnique(), properties.refresh().toMillis());
        ServletRegistrationBean<ConsoleServlet> registration = new ServletRegistrationBean<>(servlet,
                properties.path(), properties.path() + "/*");
        registration.setName("rmqConsole");
        log.info("rmq console at {} ({}{})", properties.path(), writes ? "with its writes" : "read-only",
                csrf != null ? ", inside Spring Security's rules and CSRF protection"
                        : writes ? ", from pages of its own origin" : "");
        return registration;
    }
}
