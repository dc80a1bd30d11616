//! Thin RAII wrappers over libclang: the only place in the generator that calls `clang_*`.
//!
//! Each wrapper owns its handle and disposes of it in `Drop`; cursors and types borrow the
//! translation unit they came from, so none of them can outlive it.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::marker::PhantomData;
use std::path::Path;
use std::ptr;

use anyhow::{bail, Context, Result};
use clang_sys::*;

/// Makes libclang available to this thread: found or fetched once per process (see
/// [`crate::fetch::libclang`]).
pub fn load_libclang() -> Result<()> {
    if clang_sys::is_loaded() {
        return Ok(());
    }
    crate::fetch::libclang::ensure_loaded(&crate::workspace::project_root()).map(|_| ())
}

/// Takes ownership of a `CXString` and copies it out.
fn take_string(s: CXString) -> String {
    // SAFETY: `s` was returned by libclang and is disposed of exactly once, here; the C
    // string it holds is valid until then (or null, which we treat as empty).
    unsafe {
        let p = clang_getCString(s);
        let out = if p.is_null() { String::new() } else { CStr::from_ptr(p).to_string_lossy().into_owned() };
        clang_disposeString(s);
        out
    }
}

/// A libclang index (`CXIndex`).
pub struct Index(CXIndex);

impl Index {
    pub fn new() -> Result<Index> {
        load_libclang()?;
        // SAFETY: libclang is loaded; both flags are plain booleans.
        let idx = unsafe { clang_createIndex(0, 0) };
        if idx.is_null() {
            bail!("libclang could not create an index");
        }
        Ok(Index(idx))
    }

    /// Parses `path` as C with `args`, optionally replacing its contents with `contents`.
    /// `detailed` keeps macro definitions in the AST.
    pub fn parse(
        &self,
        path: &Path,
        contents: Option<&str>,
        args: &[&str],
        detailed: bool,
    ) -> Result<TranslationUnit<'_>> {
        let path_c = CString::new(path.to_string_lossy().as_bytes()).context("path contains a NUL byte")?;
        let args_c: Vec<CString> = args.iter().map(|a| CString::new(*a)).collect::<Result<_, _>>()?;
        let argv: Vec<*const c_char> = args_c.iter().map(|a| a.as_ptr()).collect();
        let contents_c = contents.map(CString::new).transpose().context("source contains a NUL byte")?;
        let mut unsaved: Vec<CXUnsavedFile> = contents_c
            .iter()
            .map(|c| CXUnsavedFile { Filename: path_c.as_ptr(), Contents: c.as_ptr(), Length: c.as_bytes().len() as _ })
            .collect();
        let mut flags = CXTranslationUnit_SkipFunctionBodies;
        if detailed {
            flags |= CXTranslationUnit_DetailedPreprocessingRecord;
        }
        let mut tu: CXTranslationUnit = ptr::null_mut();
        // SAFETY: every pointer passed here points into a CString or Vec that lives until the
        // call returns; libclang copies what it needs. `tu` is a valid out-pointer.
        let err = unsafe {
            clang_parseTranslationUnit2(
                self.0,
                path_c.as_ptr(),
                argv.as_ptr(),
                argv.len() as c_int,
                unsaved.as_mut_ptr(),
                unsaved.len() as c_uint,
                flags,
                &mut tu,
            )
        };
        if err != CXError_Success || tu.is_null() {
            bail!("libclang could not parse {} (error code {err})", path.display());
        }
        Ok(TranslationUnit { tu, _index: PhantomData })
    }
}

impl Drop for Index {
    fn drop(&mut self) {
        // SAFETY: the index was created by `clang_createIndex` and every translation unit
        // borrowing it has been dropped (enforced by the lifetime on `TranslationUnit`).
        unsafe { clang_disposeIndex(self.0) }
    }
}

/// A parsed translation unit (`CXTranslationUnit`).
pub struct TranslationUnit<'i> {
    tu: CXTranslationUnit,
    _index: PhantomData<&'i Index>,
}

/// One diagnostic from clang, with its location.
#[derive(Debug, Clone)]
pub struct Diagnostic {
    pub severity: Severity,
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl<'i> TranslationUnit<'i> {
    pub fn cursor(&self) -> Cursor<'_> {
        // SAFETY: `self.tu` is a live translation unit.
        Cursor { c: unsafe { clang_getTranslationUnitCursor(self.tu) }, _tu: PhantomData }
    }

    /// Every diagnostic clang produced, in order.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        // SAFETY: `self.tu` is live; each diagnostic is disposed of after use.
        unsafe {
            for i in 0..clang_getNumDiagnostics(self.tu) {
                let d = clang_getDiagnostic(self.tu, i);
                let severity = match clang_getDiagnosticSeverity(d) {
                    CXDiagnostic_Error | CXDiagnostic_Fatal => Severity::Error,
                    CXDiagnostic_Warning => Severity::Warning,
                    _ => Severity::Note,
                };
                let loc = Location::of(clang_getDiagnosticLocation(d));
                let message = take_string(clang_getDiagnosticSpelling(d));
                clang_disposeDiagnostic(d);
                out.push(Diagnostic { severity, file: loc.file, line: loc.line, column: loc.column, message });
            }
        }
        out
    }

    /// The spellings of the tokens in `cursor`'s extent.
    pub fn tokens(&self, cursor: Cursor<'_>) -> Vec<String> {
        let mut tokens: *mut CXToken = ptr::null_mut();
        let mut n: c_uint = 0;
        // SAFETY: `self.tu` is live and `cursor` belongs to it; the token array is disposed of
        // with the count libclang gave us.
        unsafe {
            clang_tokenize(self.tu, clang_getCursorExtent(cursor.c), &mut tokens, &mut n);
            if tokens.is_null() {
                return Vec::new();
            }
            let out = (0..n as usize).map(|i| take_string(clang_getTokenSpelling(self.tu, *tokens.add(i)))).collect();
            clang_disposeTokens(self.tu, tokens, n);
            out
        }
    }
}

impl Drop for TranslationUnit<'_> {
    fn drop(&mut self) {
        // SAFETY: created by `clang_parseTranslationUnit2`; cursors borrowing it are gone.
        unsafe { clang_disposeTranslationUnit(self.tu) }
    }
}

/// A source location resolved to file, line and column.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub offset: u32,
}

impl Location {
    fn of(loc: CXSourceLocation) -> Location {
        let mut file: CXFile = ptr::null_mut();
        let (mut line, mut column, mut offset) = (0, 0, 0);
        // SAFETY: all out-pointers are valid; `file` may stay null for builtin locations.
        unsafe {
            clang_getSpellingLocation(loc, &mut file, &mut line, &mut column, &mut offset);
            let file = if file.is_null() { String::new() } else { take_string(clang_getFileName(file)) };
            Location { file, line, column, offset }
        }
    }
}

/// A cursor into the AST of a translation unit.
#[derive(Clone, Copy)]
pub struct Cursor<'tu> {
    c: CXCursor,
    _tu: PhantomData<&'tu ()>,
}

impl<'tu> Cursor<'tu> {
    pub fn kind(&self) -> CXCursorKind {
        // SAFETY: plain accessor on a valid cursor.
        unsafe { clang_getCursorKind(self.c) }
    }

    pub fn spelling(&self) -> String {
        // SAFETY: plain accessor on a valid cursor.
        take_string(unsafe { clang_getCursorSpelling(self.c) })
    }

    pub fn location(&self) -> Location {
        // SAFETY: plain accessor on a valid cursor.
        Location::of(unsafe { clang_getCursorLocation(self.c) })
    }

    /// The defining declaration of what this cursor refers to, if the translation unit has one.
    pub fn definition(&self) -> Option<Cursor<'tu>> {
        // SAFETY: plain accessor on a valid cursor; a null cursor means "no definition".
        unsafe {
            let d = clang_getCursorDefinition(self.c);
            (clang_Cursor_isNull(d) == 0).then_some(Cursor { c: d, _tu: PhantomData })
        }
    }

    pub fn is_definition(&self) -> bool {
        // SAFETY: plain accessor on a valid cursor.
        unsafe { clang_isCursorDefinition(self.c) != 0 }
    }

    /// True for a struct, union or enum declared without a tag name. (Clang 9 and later
    /// narrowed `clang_Cursor_isAnonymous`; older ones spell such types empty, later ones
    /// `struct (unnamed at ...)`, and libclang 16 and later spell one that a typedef names with
    /// the typedef's name. The declaration of a tagless type is located at its keyword, where
    /// its extent starts; a tag's is located at the tag.)
    pub fn is_anonymous(&self) -> bool {
        let s = self.spelling();
        if s.is_empty() || s.contains("(unnamed") || s.contains("(anonymous") {
            return true;
        }
        // SAFETY: plain accessor on a valid cursor.
        let start = Location::of(unsafe { clang_getRangeStart(clang_getCursorExtent(self.c)) });
        start.offset == self.location().offset && start.file == self.location().file
    }

    /// True for an unnamed struct or union *member* (`union { ... };` inside a struct).
    pub fn is_anonymous_member(&self) -> bool {
        // SAFETY: plain accessor on a valid cursor.
        unsafe { clang_Cursor_isAnonymousRecordDecl(self.c) != 0 }
    }

    pub fn is_deprecated(&self) -> bool {
        // SAFETY: plain accessor on a valid cursor.
        unsafe { clang_getCursorAvailability(self.c) == CXAvailability_Deprecated }
    }

    pub fn is_macro_function_like(&self) -> bool {
        // SAFETY: plain accessor on a valid cursor.
        unsafe { clang_Cursor_isMacroFunctionLike(self.c) != 0 }
    }

    pub fn is_macro_builtin(&self) -> bool {
        // SAFETY: plain accessor on a valid cursor.
        unsafe { clang_Cursor_isMacroBuiltin(self.c) != 0 }
    }

    pub fn raw_comment(&self) -> Option<String> {
        // SAFETY: plain accessor on a valid cursor.
        let s = take_string(unsafe { clang_Cursor_getRawCommentText(self.c) });
        (!s.is_empty()).then_some(s)
    }

    pub fn ty(&self) -> Type<'tu> {
        // SAFETY: plain accessor on a valid cursor.
        Type { t: unsafe { clang_getCursorType(self.c) }, _tu: PhantomData }
    }

    pub fn result_type(&self) -> Type<'tu> {
        // SAFETY: plain accessor on a valid cursor.
        Type { t: unsafe { clang_getCursorResultType(self.c) }, _tu: PhantomData }
    }

    pub fn typedef_underlying(&self) -> Type<'tu> {
        // SAFETY: plain accessor on a valid cursor.
        Type { t: unsafe { clang_getTypedefDeclUnderlyingType(self.c) }, _tu: PhantomData }
    }

    pub fn enum_integer_type(&self) -> Type<'tu> {
        // SAFETY: plain accessor on a valid cursor.
        Type { t: unsafe { clang_getEnumDeclIntegerType(self.c) }, _tu: PhantomData }
    }

    pub fn enum_value_signed(&self) -> i64 {
        // SAFETY: plain accessor on a valid cursor.
        unsafe { clang_getEnumConstantDeclValue(self.c) }
    }

    pub fn enum_value_unsigned(&self) -> u64 {
        // SAFETY: plain accessor on a valid cursor.
        unsafe { clang_getEnumConstantDeclUnsignedValue(self.c) }
    }

    /// Bit offset of a field within its record, or `None` when clang cannot say.
    pub fn field_offset_bits(&self) -> Option<u64> {
        // SAFETY: plain accessor on a valid cursor.
        let off = unsafe { clang_Cursor_getOffsetOfField(self.c) };
        (off >= 0).then_some(off as u64)
    }

    pub fn bit_width(&self) -> Option<u32> {
        // SAFETY: plain accessors on a valid cursor.
        unsafe { (clang_Cursor_isBitField(self.c) != 0).then(|| clang_getFieldDeclBitWidth(self.c) as u32) }
    }

    pub fn arguments(&self) -> Vec<Cursor<'tu>> {
        // SAFETY: indices are below the count libclang reports.
        unsafe {
            let n = clang_Cursor_getNumArguments(self.c).max(0) as c_uint;
            (0..n).map(|i| Cursor { c: clang_Cursor_getArgument(self.c, i), _tu: PhantomData }).collect()
        }
    }

    /// Evaluates a variable's initialiser as a constant expression.
    pub fn evaluate(&self) -> Option<EvalValue> {
        // SAFETY: the result is disposed of before returning; string results are copied out.
        unsafe {
            let r = clang_Cursor_Evaluate(self.c);
            if r.is_null() {
                return None;
            }
            let v = match clang_EvalResult_getKind(r) {
                CXEval_Int if clang_EvalResult_isUnsignedInt(r) != 0 => {
                    Some(EvalValue::Unsigned(clang_EvalResult_getAsUnsigned(r)))
                }
                CXEval_Int => Some(EvalValue::Signed(clang_EvalResult_getAsLongLong(r))),
                CXEval_Float => Some(EvalValue::Float(clang_EvalResult_getAsDouble(r))),
                CXEval_StrLiteral => {
                    let p = clang_EvalResult_getAsStr(r);
                    (!p.is_null()).then(|| EvalValue::Str(CStr::from_ptr(p).to_string_lossy().into_owned()))
                }
                _ => None,
            };
            clang_EvalResult_dispose(r);
            v
        }
    }

    /// The direct children, in source order.
    pub fn children(&self) -> Vec<Cursor<'tu>> {
        extern "C" fn visit(c: CXCursor, _parent: CXCursor, data: CXClientData) -> CXChildVisitResult {
            // SAFETY: `data` is the `&mut Vec<CXCursor>` passed below, alive for the whole visit.
            let out = unsafe { &mut *(data as *mut Vec<CXCursor>) };
            out.push(c);
            CXChildVisit_Continue
        }
        let mut raw: Vec<CXCursor> = Vec::new();
        // SAFETY: the visitor only pushes into `raw`, which outlives the call.
        unsafe { clang_visitChildren(self.c, visit, &mut raw as *mut Vec<CXCursor> as *mut c_void) };
        raw.into_iter().map(|c| Cursor { c, _tu: PhantomData }).collect()
    }
}

/// The value of a constant expression.
#[derive(Debug, Clone, PartialEq)]
pub enum EvalValue {
    Signed(i64),
    Unsigned(u64),
    Float(f64),
    Str(String),
}

/// A C type.
#[derive(Clone, Copy)]
pub struct Type<'tu> {
    t: CXType,
    _tu: PhantomData<&'tu ()>,
}

impl<'tu> Type<'tu> {
    pub fn kind(&self) -> CXTypeKind {
        self.t.kind
    }

    fn wrap(t: CXType) -> Type<'tu> {
        Type { t, _tu: PhantomData }
    }

    pub fn spelling(&self) -> String {
        // SAFETY: plain accessor on a valid type.
        take_string(unsafe { clang_getTypeSpelling(self.t) })
    }

    pub fn canonical(&self) -> Type<'tu> {
        // SAFETY: plain accessor on a valid type.
        Self::wrap(unsafe { clang_getCanonicalType(self.t) })
    }

    pub fn pointee(&self) -> Type<'tu> {
        // SAFETY: plain accessor on a valid type.
        Self::wrap(unsafe { clang_getPointeeType(self.t) })
    }

    pub fn element(&self) -> Type<'tu> {
        // SAFETY: plain accessor on a valid type.
        Self::wrap(unsafe { clang_getArrayElementType(self.t) })
    }

    pub fn array_len(&self) -> i64 {
        // SAFETY: plain accessor on a valid type.
        unsafe { clang_getArraySize(self.t) }
    }

    /// The type an elaborated type (`struct foo`, a typedef name in newer clang) names.
    pub fn named(&self) -> Type<'tu> {
        // SAFETY: plain accessor on a valid type.
        Self::wrap(unsafe { clang_Type_getNamedType(self.t) })
    }

    pub fn is_const(&self) -> bool {
        // SAFETY: plain accessor on a valid type.
        unsafe { clang_isConstQualifiedType(self.t) != 0 }
    }

    pub fn declaration(&self) -> Cursor<'tu> {
        // SAFETY: plain accessor on a valid type.
        Cursor { c: unsafe { clang_getTypeDeclaration(self.t) }, _tu: PhantomData }
    }

    pub fn size(&self) -> Option<u64> {
        // SAFETY: plain accessor on a valid type; negative values are clang's error codes.
        let s = unsafe { clang_Type_getSizeOf(self.t) };
        (s >= 0).then_some(s as u64)
    }

    pub fn align(&self) -> Option<u64> {
        // SAFETY: plain accessor on a valid type; negative values are clang's error codes.
        let a = unsafe { clang_Type_getAlignOf(self.t) };
        (a >= 0).then_some(a as u64)
    }

    /// Bit offset of the field called `name`, looking through anonymous members.
    pub fn offset_of(&self, name: &str) -> Option<u64> {
        let name = CString::new(name).ok()?;
        // SAFETY: `name` is a valid C string for the duration of the call.
        let off = unsafe { clang_Type_getOffsetOf(self.t, name.as_ptr()) };
        (off >= 0).then_some(off as u64)
    }

    pub fn result(&self) -> Type<'tu> {
        // SAFETY: plain accessor on a valid function type.
        Self::wrap(unsafe { clang_getResultType(self.t) })
    }

    pub fn arg_types(&self) -> Vec<Type<'tu>> {
        // SAFETY: indices are below the count libclang reports.
        unsafe {
            let n = clang_getNumArgTypes(self.t).max(0) as c_uint;
            (0..n).map(|i| Self::wrap(clang_getArgType(self.t, i))).collect()
        }
    }
}
