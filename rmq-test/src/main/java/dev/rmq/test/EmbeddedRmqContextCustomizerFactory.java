package dev.rmq.test;

import org.jspecify.annotations.Nullable;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.TestContextAnnotationUtils;

import java.util.List;

/** Finds {@link EmbeddedRmq} on a test class (or an enclosing or super class); registered in spring.factories. */
public final class EmbeddedRmqContextCustomizerFactory implements ContextCustomizerFactory {

    @Override
    public @Nullable ContextCustomizer createContextCustomizer(Class<?> testClass,
                                                               List<ContextConfigurationAttributes> configAttributes) {
        EmbeddedRmq annotation = TestContextAnnotationUtils.findMergedAnnotation(testClass, EmbeddedRmq.class);
        return annotation == null ? null : new EmbeddedRmqContextCustomizer(annotation.zookeeper());
    }
}
