package dev.rmq.spring.schedule;

import dev.rmq.RmqClient;
import dev.rmq.embedded.RedisServer;
import dev.rmq.schedule.Misfire;
import dev.rmq.schedule.Overlap;
import dev.rmq.schedule.RecurringSchedule;
import dev.rmq.schedule.ScheduleStatus;
import dev.rmq.spring.actuate.RmqSchedulesEndpoint;
import dev.rmq.spring.autoconfigure.RmqAutoConfiguration;
import dev.rmq.spring.autoconfigure.RmqSchedulesEndpointAutoConfiguration;
import dev.rmq.spring.autoconfigure.RmqRedisAutoConfiguration;
import dev.rmq.spring.autoconfigure.RmqZooKeeperAutoConfiguration;
import dev.rmq.testsupport.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code rmq.schedules.*}: how it binds, what it declares when the context starts, and what it refuses. */
@ExtendWith(RedisExtension.class)
class RmqScheduleAutoConfigurationTests {

    private final ApplicationContextRunner contextRunner;

    RmqScheduleAutoConfigurationTests(RedisServer redis) {
        contextRunner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RmqRedisAutoConfiguration.class,
                        RmqZooKeeperAutoConfiguration.class, RmqAutoConfiguration.class,
                        RmqScheduleAutoConfiguration.class))
                .withPropertyValues("rmq.redis.address=" + redis.address(), "rmq.topics.timers.type=FIXED_TIME",
                        "rmq.topics.jobs.type=PRIORITY");
    }

    @Test
    void theConfiguredSchedulesAreDeclaredWhenTheContextStarts() {
        contextRunner.withBean("reportPayload", Supplier.class, () -> () -> "report")
                .withPropertyValues("rmq.schedules.nightly.topic=timers", "rmq.schedules.nightly.cron=0 30 2 * * *",
                        "rmq.schedules.nightly.zone=Europe/Berlin", "rmq.schedules.nightly.misfire=FIRE_ALL",
                        "rmq.schedules.nightly.misfire-bound=3", "rmq.schedules.nightly.headers.kind=report",
                        "rmq.schedules.nightly.payload-supplier=reportPayload",
                        "rmq.schedules.beat.topic=timers", "rmq.schedules.beat.every=5m",
                        "rmq.schedules.beat.overlap=SKIP", "rmq.schedules.beat.payload=tick")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    RmqScheduleAutoConfiguration.ScheduleDeclarations declared =
                            context.getBean(RmqScheduleAutoConfiguration.ScheduleDeclarations.class);
                    RecurringSchedule nightly = declared.schedules().stream()
                            .filter(s -> s.name().equals("nightly")).findFirst().orElseThrow();
                    assertThat(nightly.misfire()).isEqualTo(Misfire.fireAll(3));
                    assertThat(nightly.headers()).containsEntry("kind", "report");
                    assertThat(nightly.nextPayload()).isEqualTo("report");
                    assertThat(context.getBean(RmqClient.class).admin().schedules().list()).extracting(ScheduleStatus::name,
                            ScheduleStatus::rule, ScheduleStatus::overlap).containsExactly(
                            org.assertj.core.groups.Tuple.tuple("beat", "every " + Duration.ofMinutes(5), Overlap.SKIP.name()),
                            org.assertj.core.groups.Tuple.tuple("nightly", "cron 0 30 2 * * * Europe/Berlin", "DELAY"));
                });
    }

    @Test
    void aBadScheduleFailsStartUpNamingItsProperty() {
        contextRunner.withPropertyValues("rmq.schedules.x.topic=timers", "rmq.schedules.x.cron=0 61 * * * *")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("rmq.schedules.x.cron: cron expression \"0 61 * * * *\" is not valid")
                        .hasStackTraceContaining("MinuteOfHour"));
        contextRunner.withPropertyValues("rmq.schedules.x.topic=timers")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("rmq.schedules.x needs cron or every, not neither"));
        contextRunner.withPropertyValues("rmq.schedules.x.topic=jobs", "rmq.schedules.x.every=1s")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("not a FIXED_TIME topic"));
        contextRunner.withPropertyValues("rmq.schedules.x.topic=timers", "rmq.schedules.x.every=0s")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("rmq.schedules.x.every: the rate of a schedule must be at least 1 ms"));
        contextRunner.withPropertyValues("rmq.schedules.x.topic=timers", "rmq.schedules.x.every=1s",
                        "rmq.schedules.x.payload-supplier=missing")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("rmq.schedules.x.payload-supplier names bean 'missing'"));
    }

    @Test
    void theSchedulesEndpointListsOneScheduleAndActsOnIt() {
        contextRunner.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class,
                        RmqSchedulesEndpointAutoConfiguration.class))
                .withPropertyValues("management.endpoints.web.exposure.include=rmqschedules",
                        "management.endpoint.rmqschedules.access=UNRESTRICTED",
                        "rmq.schedules.beat.topic=timers", "rmq.schedules.beat.every=1h")
                .run(context -> {
                    RmqSchedulesEndpoint endpoint = context.getBean(RmqSchedulesEndpoint.class);
                    assertThat(endpoint.schedules().schedules()).extracting(ScheduleStatus::name).containsExactly("beat");
                    assertThat(endpoint.schedule("beat").nextTick()).isNotNull();
                    assertThat(endpoint.schedule("other")).as("404").isNull();

                    ScheduleStatus paused = endpoint.change("beat", "pause", SecurityContext.NONE);
                    assertThat(paused.paused()).isTrue();
                    assertThat(paused.nextTick()).isNull();
                    assertThat(endpoint.change("beat", "resume", SecurityContext.NONE).paused()).isFalse();
                    assertThat(endpoint.change("other", "pause", SecurityContext.NONE)).as("404").isNull();
                    assertThatThrownBy(() -> endpoint.change("beat", "stop", SecurityContext.NONE))
                            .isInstanceOf(InvalidEndpointRequestException.class)
                            .hasMessageContaining("action must be pause, resume or trigger, was 'stop'");

                    assertThat(endpoint.remove("beat", SecurityContext.NONE)).isNotNull();
                    assertThat(endpoint.schedule("beat")).isNull();
                    assertThat(endpoint.schedules().schedules()).isEmpty();
                });
    }
}
