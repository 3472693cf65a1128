// Maps certificate subjects to principals with Kafka's own SslPrincipalMapper, as a broker does with
// ssl.principal.mapping.rules: java -cp "<kafka>/libs/*" MapPrincipals.java RULES SUBJECT... (tests/unit/test_kafka_principals.py)
import org.apache.kafka.common.security.ssl.SslPrincipalMapper;
public class MapPrincipals {
    public static void main(String[] args) throws Exception {
        SslPrincipalMapper mapper = SslPrincipalMapper.fromRules(args[0]);
        for (int i = 1; i < args.length; i++) System.out.println(mapper.getName(args[i]));
    }
}
