package dev.rmq.spring.schedule;

import dev.rmq.RmqClient;
import dev.rmq.schedule.RecurringSchedule;
import dev.rmq.spring.autoconfigure.RmqAutoConfiguration;
import dev.rmq.topic.TopicType;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Declares the schedules of {@code rmq.schedules.*} on the application's client when the context starts. Every
 * definition is checked when the context is built, so a bad one fails start-up naming its property. The client's
 * close, with the context, stops this instance's ticks; the other instances that declare them go on.
 */
@AutoConfiguration(after = RmqAutoConfiguration.class)
@ConditionalOnBean(RmqClient.class)
@EnableConfigurationProperties(RmqScheduleProperties.class)
public final class RmqScheduleAutoConfiguration {

    @Bean
    ScheduleDeclarations rmqScheduleDeclarations(RmqClient client, RmqScheduleProperties properties,
                                                 BeanFactory beans) {
        List<RecurringSchedule> schedules = new ArrayList<>();
        for (Map.Entry<String, RmqScheduleProperties.Schedule> entry : properties.schedules().entrySet()) {
            schedules.add(entry.getValue().toSchedule(entry.getKey(), name -> supplier(beans, entry.getKey(), name)));
        }
        return new ScheduleDeclarations(client, schedules);
    }

    private static Supplier<?> supplier(BeanFactory beans, String schedule, String name) {
        try {
            return beans.getBean(name, Supplier.class);
        } catch (NoSuchBeanDefinitionException e) {
            throw new IllegalArgumentException("rmq.schedules." + schedule + ".payload-supplier names bean '" + name
                    + "', which is not a java.util.function.Supplier of this context", e);
        }
    }

    /** Declares the schedules once the context has started, so that a tick finds its consumers' containers built. */
    static final class ScheduleDeclarations implements SmartLifecycle {

        private final RmqClient client;
        private final List<RecurringSchedule> schedules;
        private volatile boolean running;

        ScheduleDeclarations(RmqClient client, List<RecurringSchedule> schedules) {
            this.client = client;
            this.schedules = List.copyOf(schedules);
            // a schedule on a topic that cannot take it is refused here, with the context, rather than at start
            for (RecurringSchedule schedule : schedules) {
                if (!client.topics().contains(schedule.topic())
                        || client.topics().require(schedule.topic()).type() != TopicType.FIXED_TIME) {
                    throw new IllegalArgumentException("rmq.schedules." + schedule.name() + ".topic names '"
                            + schedule.topic() + "', which is not a FIXED_TIME topic of rmq.topics; a schedule's ticks"
                            + " are messages due at an instant");
                }
            }
        }

        List<RecurringSchedule> schedules() {
            return schedules;
        }

        @Override
        public void start() {
            schedules.forEach(client.admin().schedules()::upsert);
            running = true;
        }

        @Override
        public void stop() {
            running = false;
        }

        @Override
        public boolean isRunning() {
            return running;
        }
    }
}
