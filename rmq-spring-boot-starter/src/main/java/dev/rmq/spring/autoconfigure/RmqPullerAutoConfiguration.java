package dev.rmq.spring.autoconfigure;

import dev.rmq.PullerBuilder;
import dev.rmq.RmqClient;
import dev.rmq.pull.RmqPuller;
import dev.rmq.spring.listener.RmqSlotAssignmentFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.type.AnnotatedTypeMetadata;

import java.util.List;

/**
 * An {@link RmqPuller} bean when {@code rmq.puller.topics} names topics: started here, with the application's slot
 * assignment (ZooKeeper's when there is one), and closed when the context closes, before the clients it uses.
 */
@AutoConfiguration(after = {RmqAutoConfiguration.class, RmqCoordinationAutoConfiguration.class})
@ConditionalOnBean({RmqClient.class, RmqSlotAssignmentFactory.class})
@Conditional(RmqPullerAutoConfiguration.TopicsConfigured.class)
public final class RmqPullerAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(RmqPuller.class)
    RmqPuller<String> rmqPuller(RmqClient client, RmqSlotAssignmentFactory assignments, RmqProperties properties) {
        RmqProperties.Puller settings = properties.puller();
        PullerBuilder<String> builder = client.puller(String.class)
                .topics(settings.topics().toArray(String[]::new))
                .id(settings.id())
                .assignmentByTopic(topic -> assignments.create(topic, settings.id()));
        PropertyMapper map = PropertyMapper.get();
        map.from(settings.idlePoll()).to(builder::idlePoll);
        map.from(settings.closeTimeout()).to(builder::closeTimeout);
        map.from(settings.slotOrder()).to(builder::slotOrder);
        RmqPuller<String> puller = builder.build();
        puller.start();
        return puller;
    }

    /** Whether {@code rmq.puller.topics} names at least one topic, as a list or as comma-separated text. */
    static final class TopicsConfigured implements Condition {

        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return !Binder.get(context.getEnvironment()).bind("rmq.puller.topics", Bindable.listOf(String.class))
                    .orElse(List.of()).isEmpty();
        }
    }
}
