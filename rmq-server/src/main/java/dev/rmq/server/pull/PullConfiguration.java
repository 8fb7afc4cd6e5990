package dev.rmq.server.pull;

import dev.rmq.RmqClient;
import dev.rmq.spring.listener.RmqSlotAssignmentFactory;
import dev.rmq.topic.TopicDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.JsonNode;

import java.time.Clock;

/**
 * The server's puller: every configured topic, each payload read as a JSON tree, with the application's slot
 * assignment (with ZooKeeper, the server takes only the slots assigned to it, as a listener container would).
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({PullProperties.class, TokenProperties.class})
class PullConfiguration {

    private static final Logger log = LoggerFactory.getLogger(PullConfiguration.class);

    @Bean
    ServerPuller serverPuller(RmqClient client, RmqSlotAssignmentFactory assignments, PullProperties properties,
                              TokenProperties tokenProperties) {
        String[] topics = client.topics().all().stream().map(TopicDefinition::name).toArray(String[]::new);
        if (topics.length == 0) {
            throw new IllegalStateException("rmq-server has no topic to serve: define at least one under rmq.topics,"
                    + " as rmq.topics.<name>.type=RANGE_MERGE, PRIORITY or FIXED_TIME");
        }
        return new ServerPuller(() -> client.puller(JsonNode.class)
                .topics(topics)
                .id(properties.id())
                .idlePoll(properties.idlePoll())
                .closeTimeout(properties.closeTimeout())
                .slotOrder(properties.slotOrder())
                .assignmentByTopic(topic -> assignments.create(topic, properties.id()))
                .build(), client.topics(), properties.maxWait(), Clock.systemUTC(), tokens(tokenProperties));
    }

    private static DeliveryTokens tokens(TokenProperties properties) {
        DeliveryTokens tokens = properties.tokens();
        if (tokens.shared()) {
            log.info("delivery tokens are signed with rmq.server.tokens.secret: every server that shares it settles"
                    + " them");
        } else {
            log.info("delivery tokens are signed with a key of this server alone: only it settles them. Behind a load"
                    + " balancer, give every server the same rmq.server.tokens.secret");
        }
        return tokens;
    }
}
