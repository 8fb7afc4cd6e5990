package dev.rmq.spring.aot;

import dev.rmq.spring.annotation.RmqListener;
import dev.rmq.spring.listener.ListenerSignature;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;

import java.lang.reflect.Method;
import java.util.Map;

/**
 * Declares, for each bean with {@code @RmqListener} methods, what rmq needs of it at run time: each listener method,
 * invoked by reflection, and its payload type, which the codec binds by reflection. A signature rmq cannot serve is
 * left to the start-up check, which says what is wrong with it.
 */
public class RmqListenerAotProcessor implements BeanRegistrationAotProcessor {

    private final BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();

    @Override
    public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean bean) {
        Class<?> type = ClassUtils.getUserClass(bean.getBeanClass());
        Map<Method, RmqListener> listeners = MethodIntrospector.selectMethods(type,
                (MethodIntrospector.MetadataLookup<RmqListener>) m -> AnnotatedElementUtils.findMergedAnnotation(m,
                        RmqListener.class));
        if (listeners.isEmpty()) {
            return null;
        }
        return (generationContext, code) -> {
            ReflectionHints reflection = generationContext.getRuntimeHints().reflection();
            for (Method method : listeners.keySet()) {
                reflection.registerMethod(method, ExecutableMode.INVOKE);
                try {
                    bindings.registerReflectionHints(reflection, ListenerSignature.of(type, method).payloadType());
                } catch (IllegalArgumentException e) {
                    // the start-up check refuses this listener and says why
                }
            }
        };
    }
}
