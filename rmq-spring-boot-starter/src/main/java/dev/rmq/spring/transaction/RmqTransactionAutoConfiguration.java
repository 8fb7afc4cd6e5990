package dev.rmq.spring.transaction;

import dev.rmq.producer.SendHold;
import dev.rmq.spring.autoconfigure.RmqAutoConfiguration;
import dev.rmq.spring.autoconfigure.RmqProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Sends that follow the transaction: with Spring's transaction support on the class path, the producer's sends
 * inside a transaction wait for its commit, and a rollback drops them. {@code rmq.producer.after-commit=false}
 * sends at once everywhere; {@code producer.atOnce()} does so for one send.
 */
@AutoConfiguration(before = RmqAutoConfiguration.class)
@ConditionalOnClass(TransactionSynchronizationManager.class)
@ConditionalOnProperty(prefix = "rmq.producer", name = "after-commit", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(RmqProperties.class)
public class RmqTransactionAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    SendHold rmqTransactionSendHold(RmqProperties properties) {
        return new TransactionSendHold(properties.producer().afterCommitWait());
    }
}
