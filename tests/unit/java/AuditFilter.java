// Logs lines through reload4j configured with the audit log's properties, as a broker's kafka.authorizer.logger does:
// java -cp "<kafka>/libs/*" AuditFilter.java PROPERTIES_FILE LINE... prints the lines the appender kept
// (tests/unit/test_kafka_audit_log.py). The properties name an appender "audit"; this writes it to stdout.
import java.io.FileInputStream;
import java.util.Properties;
import org.apache.log4j.Logger;
import org.apache.log4j.PropertyConfigurator;
public class AuditFilter {
    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        try (FileInputStream in = new FileInputStream(args[0])) { props.load(in); }
        props.setProperty("log4j.appender.audit", "org.apache.log4j.ConsoleAppender");
        props.setProperty("log4j.appender.audit.layout", "org.apache.log4j.PatternLayout");
        props.setProperty("log4j.appender.audit.layout.ConversionPattern", "%m%n");
        props.setProperty("log4j.logger.kafka.authorizer.logger", "DEBUG, audit");
        PropertyConfigurator.configure(props);
        Logger audit = Logger.getLogger("kafka.authorizer.logger");
        for (int i = 1; i < args.length; i++) audit.debug(args[i]);
    }
}
