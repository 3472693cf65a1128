// Logs lines through log4j2 (Kafka 4.x) configured with the audit log's filter, as a broker's kafka.authorizer.logger
// does: java -cp "<kafka>/libs/*" AuditFilter2.java CONFIG_YAML LINE... prints the lines the appender kept
// (tests/unit/test_kafka_audit_log.py). The YAML config names a console appender with the filter.
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import org.apache.logging.log4j.core.config.Configurator;
public class AuditFilter2 {
    public static void main(String[] args) throws Exception {
        Configurator.initialize("audit", args[0]);
        Logger audit = LogManager.getLogger("kafka.authorizer.logger");
        for (int i = 1; i < args.length; i++) audit.debug(args[i]);
    }
}
