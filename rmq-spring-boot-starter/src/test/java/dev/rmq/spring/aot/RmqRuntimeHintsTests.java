package dev.rmq.spring.aot;

import dev.rmq.consumer.RmqMessage;
import dev.rmq.spring.annotation.RmqListener;
import dev.rmq.spring.autoconfigure.RmqAutoConfiguration;
import dev.rmq.spring.autoconfigure.RmqProperties;
import dev.rmq.spring.autoconfigure.RmqRedisAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.io.support.SpringFactoriesLoader;

import java.io.IOException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The hints rmq gives ahead-of-time builds, checked as a native image would use them. */
class RmqRuntimeHintsTests {

    @Test
    void everyScriptIsDeclaredAsAResource() throws IOException {
        RuntimeHints hints = new RuntimeHints();
        new RmqRuntimeHints().registerHints(hints, getClass().getClassLoader());

        Resource[] scripts = new PathMatchingResourcePatternResolver().getResources("classpath*:" + RmqRuntimeHints.SCRIPTS);
        assertThat(scripts).hasSizeGreaterThan(10);
        for (Resource script : scripts) {
            assertThat(RuntimeHintsPredicates.resource().forResource("dev/rmq/internal/script/" + script.getFilename()))
                    .accepts(hints);
        }
        assertThat(RuntimeHintsPredicates.resource().forResource("dev/rmq/internal/script/none.txt")).rejects(hints);
    }

    @Test
    void theHintsAndTheListenerProcessorAreFoundAsSpringFindsThem() {
        assertThat(SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
                .load(RuntimeHintsRegistrar.class)).hasAtLeastOneElementOfType(RmqRuntimeHints.class);
        assertThat(AotServices.factories().load(BeanRegistrationAotProcessor.class))
                .hasAtLeastOneElementOfType(RmqListenerAotProcessor.class);
    }

    @Test
    void listenerMethodsAreInvocableAndTheirPayloadsBindable() throws NoSuchMethodException {
        RuntimeHints hints = hintsFor(Listeners.class);

        for (String name : List.of("single", "batch", "batchOfMessages")) {
            assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Listeners.class, name)).accepts(hints);
        }
        for (Class<?> payload : List.of(Order.class, Refund.class, Parcel.class)) {
            assertThat(RuntimeHintsPredicates.reflection().onType(payload)
                    .withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).accepts(hints);
        }
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Listeners.class, "notAListener"))
                .rejects(hints);
    }

    @Test
    void anApplicationProcessedAheadOfTimeDeclaresRmqsPropertiesScriptsAndListeners() {
        // the AOT engine as a build runs it: conditions decided, bean definitions analysed, nothing connects
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        TestPropertyValues.of("rmq.redis.address=redis://127.0.0.1:1", "rmq.topics.orders.type=PRIORITY")
                .applyTo(context);
        context.register(Application.class);
        DefaultGenerationContext generation = new DefaultGenerationContext(new ClassNameGenerator(
                org.springframework.javapoet.ClassName.get(Application.class)), new InMemoryGeneratedFiles());

        new ApplicationContextAotGenerator().processAheadOfTime(context, generation);

        RuntimeHints hints = generation.getRuntimeHints();
        assertThat(RuntimeHintsPredicates.resource().forResource("dev/rmq/internal/script/prepare.lua"))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Listeners.class, "single")).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(Order.class)).accepts(hints);
        // enums need none: native images keep their constants
        for (Class<?> properties : List.of(RmqProperties.class, RmqProperties.Listener.class,
                RmqProperties.Topic.class)) {
            assertThat(RuntimeHintsPredicates.reflection().onType(properties)).as("binding of %s", properties)
                    .accepts(hints);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({RmqRedisAutoConfiguration.class, RmqAutoConfiguration.class})
    static class Application {
        @Bean
        Listeners listeners() {
            return new Listeners();
        }
    }

    @Test
    void aBeanWithoutListenersGetsNothing() {
        DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
        beans.registerBeanDefinition("plain", new RootBeanDefinition(Refund.class));
        assertThat(new RmqListenerAotProcessor().processAheadOfTime(RegisteredBean.of(beans, "plain"))).isNull();
    }

    private static RuntimeHints hintsFor(Class<?> beanClass) {
        DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
        beans.registerBeanDefinition("listeners", new RootBeanDefinition(beanClass));
        BeanRegistrationAotContribution contribution = new RmqListenerAotProcessor()
                .processAheadOfTime(RegisteredBean.of(beans, "listeners"));
        assertThat(contribution).isNotNull();
        DefaultGenerationContext generation = new DefaultGenerationContext(new ClassNameGenerator(
                org.springframework.javapoet.ClassName.get(RmqRuntimeHintsTests.class)), new InMemoryGeneratedFiles());
        contribution.applyTo(generation, null);
        return generation.getRuntimeHints();
    }

    record Order(String id, long cents) {
    }

    record Refund(String order) {
    }

    record Parcel(String tracking) {
    }

    static class Listeners {
        @RmqListener(topic = "orders")
        void single(Order order) {
        }

        @RmqListener(topic = "refunds")
        void batch(List<Refund> refunds) {
        }

        @RmqListener(topic = "parcels")
        void batchOfMessages(List<RmqMessage<Parcel>> parcels) {
        }

        void notAListener(String text) {
        }
    }
}
