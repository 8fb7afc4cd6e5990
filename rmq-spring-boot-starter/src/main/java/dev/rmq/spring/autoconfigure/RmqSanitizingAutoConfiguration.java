package dev.rmq.spring.autoconfigure;

import org.springframework.boot.actuate.endpoint.SanitizableData;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

import java.util.Locale;

/**
 * Keeps the keys of encrypted payloads out of the actuator's {@code env} and {@code configprops} endpoints, even where
 * they show values: {@code rmq.payload.keys.*}, from any source (an environment variable {@code RMQ_PAYLOAD_KEYS_*}
 * too), is shown as {@code ******}.
 */
@AutoConfiguration
@ConditionalOnClass(SanitizingFunction.class)
public final class RmqSanitizingAutoConfiguration {

    @Bean
    SanitizingFunction rmqPayloadKeysSanitizer() {
        return RmqSanitizingAutoConfiguration::sanitize;
    }

    static SanitizableData sanitize(SanitizableData data) {
        String key = data.getKey().toLowerCase(Locale.ROOT).replace('_', '.').replace("-", "");
        return key.contains("rmq.payload.keys.") ? data.withSanitizedValue() : data;
    }
}
