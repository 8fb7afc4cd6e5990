package dev.rmq.server.journal;

import org.apache.commons.logging.Log;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.config.ConfigDataEnvironmentPostProcessor;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Leaves the database out unless one is configured. The server carries JDBC and the PostgreSQL and MariaDB drivers
 * for its journal, and with them on the class path Spring Boot would build a connection pool at start-up and fail
 * for want of a URL. Without {@code spring.datasource.url} the data source auto-configuration is therefore
 * excluded, keeping whatever exclusions the configuration already lists, and the journal is turned off; the server
 * then runs without one, and a restore answers that there is none.
 */
public class DataSourceSwitch implements EnvironmentPostProcessor, Ordered {

    /** Spring Boot's auto-configuration of the {@code DataSource}. */
    static final String DATA_SOURCE_AUTO_CONFIGURATION =
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration";
    static final String EXCLUDE = "spring.autoconfigure.exclude";
    static final String SOURCE = "rmqServerNoDataSource";

    private final Log log;

    /** Logging is not set up when environment post-processors run; Boot replays this log once it is. */
    public DataSourceSwitch(DeferredLogFactory logs) {
        this.log = logs.getLog(DataSourceSwitch.class);
    }

    @Override
    public int getOrder() {
        // after application.yml, the environment and the command line have been read
        return ConfigDataEnvironmentPostProcessor.ORDER + 1;
    }

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        String url = environment.getProperty("spring.datasource.url");
        if (url != null && !url.isBlank()) {
            return;
        }
        List<String> excluded = new ArrayList<>(Binder.get(environment)
                .bind(EXCLUDE, Bindable.listOf(String.class)).orElse(List.of()));
        if (!excluded.contains(DATA_SOURCE_AUTO_CONFIGURATION)) {
            excluded.add(DATA_SOURCE_AUTO_CONFIGURATION);
        }
        environment.getPropertySources().addFirst(new MapPropertySource(SOURCE,
                Map.of(EXCLUDE, String.join(",", excluded), "rmq.journal.enabled", "false")));
        log.info("No database is configured (spring.datasource.url): the server runs without one, and a restore"
                + " answers journal-disabled");
    }
}
