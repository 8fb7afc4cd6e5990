package dev.rmq.spring;

import dev.rmq.testsupport.db.PostgresTestServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

import javax.sql.DataSource;

/**
 * The application's own database for one test class: a real PostgreSQL server, stopped even when the class fails,
 * and the beans an application defines on it ({@link Beans}: its DataSource and transaction manager).
 */
public final class ApplicationDatabase implements BeforeAllCallback, AfterAllCallback {

    private static PostgresTestServer postgres;

    /** A DataSource on the running server. */
    public static DataSource dataSource() {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(postgres.jdbcUrl());
        return dataSource;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        postgres = PostgresTestServer.start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (postgres != null) {
            postgres.close();
            postgres = null;
        }
    }

    /** The DataSource and transaction manager of an application on the class's database. */
    @Configuration(proxyBeanMethods = false)
    public static class Beans {

        @Bean
        DataSource dataSource() {
            return ApplicationDatabase.dataSource();
        }

        @Bean
        PlatformTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }
    }
}
