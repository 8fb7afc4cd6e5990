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
import org.springframework.beans.factory.ListableBeanFactory;
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
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.ServerResponse;

/**
 * The web console, when {@code rmq.dashboard.enabled=true}, on the application's own web server at
 * {@code rmq.dashboard.path}, servlet or reactive: whatever guards the application's other pages (Spring Security's
 * filter chain or web filters, a proxy) guards it too.
 */
@AutoConfiguration(after = {RmqAutoConfiguration.class, RmqCoordinationAutoConfiguration.class,
        RmqJournalAutoConfiguration.class},
        afterName = {"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
                "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
                "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple"
                        + ".SimpleMetricsExportAutoConfiguration"})
@ConditionalOnWebApplication
@ConditionalOnProperty(prefix = "rmq.dashboard", name = "enabled", havingValue = "true")
@ConditionalOnBean(RmqClient.class)
@EnableConfigurationProperties(RmqDashboardProperties.class)
public final class RmqDashboardAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(RmqDashboardAutoConfiguration.class);

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

    /** The bean by which Spring Security guards a servlet application (its BeanIds.SPRING_SECURITY_FILTER_CHAIN). */
    private static final String SERVLET_SECURITY = "springSecurityFilterChain";
    /** The type of the bean by which it guards a reactive one. */
    private static final String REACTIVE_SECURITY = "org.springframework.security.web.server.WebFilterChainProxy";

    @Bean
    ConsoleHandler rmqConsoleHandler(ConsoleHistory history, ObjectProvider<ConsoleJournal> journal,
                                     RmqDashboardProperties properties, ListableBeanFactory beans) {
        boolean springSecurity = guardedBySpringSecurity(beans);
        Boolean asked = properties.writeOperationsEnabled();
        boolean writes = asked != null ? asked : springSecurity;
        log.info("rmq console at {} ({}{})", properties.path(), writes ? "with its writes" : "read-only",
                springSecurity ? ", inside Spring Security's rules and CSRF protection"
                        : writes ? ", from pages of its own origin" : "");
        return new ConsoleHandler(history.data(), history, new ConsoleAccess(writes), journal.getIfUnique(),
                properties.refresh().toMillis());
    }

    /** On a servlet web server: a servlet of the application's, behind its filters. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass({HttpServlet.class, ServletRegistrationBean.class})
    static final class OnServlet {

        @Bean
        ServletRegistrationBean<ConsoleServlet> rmqConsole(ConsoleHandler handler, RmqDashboardProperties properties) {
            ServletRegistrationBean<ConsoleServlet> registration = new ServletRegistrationBean<>(
                    new ConsoleServlet(handler), properties.path(), properties.path() + "/*");
            registration.setName("rmqConsole");
            return registration;
        }
    }

    /** On a reactive web server: routes of the application's, behind its web filters. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    @ConditionalOnClass(RouterFunction.class)
    static final class OnReactive {

        @Bean
        RouterFunction<ServerResponse> rmqConsoleRoutes(ConsoleHandler handler, RmqDashboardProperties properties) {
            ReactorNettyCheck.warnIfStalling(RmqDashboardAutoConfiguration.class.getClassLoader());
            return ConsoleRoutes.at(properties.path(), handler);
        }
    }

    /** Whether Spring Security's filters are in the application: not merely its classes on the classpath. */
    private static boolean guardedBySpringSecurity(ListableBeanFactory beans) {
        if (beans.containsBean(SERVLET_SECURITY)) {
            return true;
        }
        ClassLoader loader = RmqDashboardAutoConfiguration.class.getClassLoader();
        return ClassUtils.isPresent(REACTIVE_SECURITY, loader)
                && beans.getBeanNamesForType(ClassUtils.resolveClassName(REACTIVE_SECURITY, loader), false, false)
                .length > 0;
    }
}
