// The namespaces most tests use, imported once here (a test file names only its own others).
global using System;
global using System.Collections.Generic;
global using System.IO;
global using System.Linq;
global using System.Text;
global using System.Threading.Tasks;
global using Xunit;
